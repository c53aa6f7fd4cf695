/// How the breakdowns group a device's system: its platform and the major version, "ios 17" for
/// 17.4.1, the platform alone without a version. The same as the SQL of migration 0039 (SQLite)
/// and `breakdown_os` (postgres/0021): the writer's collector groups clicks with this function,
/// other connections with that SQL.
public enum OperatingSystemGroup {
    public static func of(platform: String?, version: String?) -> String {
        let platform = platform ?? ""
        guard let version, !version.isEmpty else { return platform }
        return platform + " " + version.prefix { $0 != "." }
    }
}
