import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One server per SQLite file: `serve` holds an exclusive lock on `<db>.serve.lock` for its
/// whole life (the kernel lets it go when the process ends, however it ends). Two servers on one
/// file each keep their own caches and counters, and each would answer for links the other edits;
/// the command line's one-off writes are not servers and take no lock.
final class ServerFileLock {
    private let descriptor: Int32

    /// The lock, or the reason it is held elsewhere (naming the other process where the lock file
    /// says which).
    static func acquire(databasePath: String) -> Result<ServerFileLock, LockError> {
        let path = databasePath + ".serve.lock"
        try? FileManager.default.createDirectory(
            atPath: (databasePath as NSString).deletingLastPathComponent.isEmpty ? "." : (databasePath as NSString).deletingLastPathComponent,
            withIntermediateDirectories: true)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            return .failure(
                LockError(message: "cannot write beside the database \(databasePath) (its lock file: \(String(cString: strerror(errno))))"))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = pread(descriptor, &buffer, buffer.count, 0)
            let holder = count > 0 ? String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
            close(descriptor)
            return .failure(
                LockError(
                    message: "another attributiond server uses \(databasePath)" + (holder.isEmpty ? "" : " (process \(holder))")
                        + ": stop it first, or give this one its own --db (several nodes share PostgreSQL, not a SQLite file)"))
        }
        let pid = "\(getpid())\n"
        _ = ftruncate(descriptor, 0)
        _ = pid.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        return .success(ServerFileLock(descriptor: descriptor))
    }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    struct LockError: Error {
        let message: String
    }
}
