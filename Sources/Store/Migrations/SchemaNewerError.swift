/// The database holds migrations this build does not know: a newer binary migrated it. Starting
/// would run old SQL against a newer schema, so the command stops with this instead.
public struct SchemaNewerError: Error, CustomStringConvertible {
    public let unknown: [String]
    public let newestKnown: String?
    public var description: String {
        "the database schema is newer than this binary: it has \(unknown.joined(separator: ", ")), "
            + "this build knows migrations up to \(newestKnown ?? "none"); run a build at least as new"
    }

    public static func check(applied: [String], known: [Migration]) throws(SchemaNewerError) {
        let names = Set(known.map(\.name))
        let unknown = applied.filter { !names.contains($0) }.sorted()
        guard unknown.isEmpty else { throw SchemaNewerError(unknown: unknown, newestKnown: known.map(\.name).max()) }
    }
}
