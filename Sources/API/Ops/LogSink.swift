import Foundation

/// Where log lines go: stderr, or a file opened for appending. SIGHUP calls `reopen()` so a
/// rotated file (moved away by logrotate) is replaced by a fresh one at the same path.
public final class LogSink: @unchecked Sendable {
    private let lock = NSLock()
    private var handle: FileHandle  // guarded by `lock`
    public let path: String?

    public init(path: String?) throws {
        self.path = path
        handle = try Self.open(path)
    }

    public func write(_ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        handle.write(Data(bytes))
    }

    public func reopen() throws {
        guard path != nil else { return }
        let fresh = try Self.open(path)
        lock.lock()
        let old = handle
        handle = fresh
        lock.unlock()
        try? old.close()
    }

    private static func open(_ path: String?) throws -> FileHandle {
        guard let path else { return FileHandle.standardError }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
            }
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        return handle
    }
}
