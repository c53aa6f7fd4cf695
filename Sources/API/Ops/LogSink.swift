import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    /// Writes all of `bytes` with `write(2)`, straight from the array: `FileHandle.write(Data(…))`
    /// would copy every flush into a new buffer first. A log that cannot be written is not worth
    /// stopping the server for, so errors other than EINTR end the attempt silently.
    public func write(_ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        let descriptor = handle.fileDescriptor
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Self.systemWrite(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { return }
            }
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
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
