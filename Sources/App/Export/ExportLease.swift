import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Who holds a project's export: `host/pid/random`, so a process on the same machine can tell
/// that the holder has ended (a `kill -9`, a crash) and take over without waiting for the lease.
enum ExportLease {
    static func node() -> String {
        "\(ProcessInfo.processInfo.hostName)/\(getpid())/\(UInt32.random(in: .min ... .max))"
    }

    static func isGone(_ holder: String) -> Bool {
        let parts = holder.split(separator: "/")
        guard parts.count == 3, parts[0] == ProcessInfo.processInfo.hostName, let pid = Int32(parts[1]) else { return false }
        return pid != getpid() && kill(pid, 0) == -1 && errno == ESRCH
    }
}
