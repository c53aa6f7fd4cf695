import CZlib

#if canImport(Glibc)
    import Glibc
#endif

/// A gzip file written as bytes arrive (RFC 1952): the export writes an hour of rows without
/// holding them, and the compressed file's SHA-256 and size are what its manifest names.
public final class GzipFileWriter {
    public enum Failure: Error, CustomStringConvertible {
        case open(path: String, errno: Int32)
        case write(path: String, errno: Int32)
        case zlib(code: Int32)

        public var description: String {
            switch self {
            case .open(let path, let code): "cannot create \(path): \(String(cString: strerror(code)))"
            case .write(let path, let code): "cannot write \(path): \(String(cString: strerror(code)))"
            case .zlib(let code): "zlib failed (\(code))"
            }
        }
    }

    public let path: String
    private var stream = z_stream()
    private let descriptor: Int32
    private var output: [UInt8]
    private var pending: [UInt8] = []
    /// Uncompressed bytes taken so far.
    public private(set) var inputBytes = 0
    /// Compressed bytes written so far.
    public private(set) var outputBytes = 0
    private var finished = false
    /// Told of every compressed chunk as it is written (the manifest's checksum).
    private let onOutput: ([UInt8]) -> Void

    /// Creates (or empties) `path`. Level 6 is zlib's default: level 1 made the files of the
    /// export's benchmark 30% larger for 25% less time (docs/export.md).
    public init(path: String, level: Int32 = 6, onOutput: @escaping ([UInt8]) -> Void = { _ in }) throws {
        self.path = path
        self.onOutput = onOutput
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure.open(path: path, errno: errno) }
        output = [UInt8](repeating: 0, count: 1 << 17)
        let code = attributiond_deflate_init_gzip(&stream, level)
        guard code == Z_OK else {
            close(descriptor)
            throw Failure.zlib(code: code)
        }
        pending.reserveCapacity(1 << 16)
    }

    deinit {
        if !finished { deflateEnd(&stream) }
        close(descriptor)
    }

    /// Takes `bytes`; they are compressed in chunks of 64 KiB.
    public func write(_ bytes: some Collection<UInt8>) throws {
        pending.append(contentsOf: bytes)
        inputBytes += bytes.count
        if pending.count >= 1 << 16 { try deflatePending(flush: Z_NO_FLUSH) }
    }

    public func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { try write($0) }
    }

    /// Writes the gzip trailer and syncs the file to disk.
    public func finish() throws {
        try deflatePending(flush: Z_FINISH)
        deflateEnd(&stream)
        finished = true
        guard fsync(descriptor) == 0 else { throw Failure.write(path: path, errno: errno) }
    }

    private func deflatePending(flush: Int32) throws {
        let outputCount = output.count
        try pending.withUnsafeMutableBufferPointer { input in
            stream.next_in = input.baseAddress
            stream.avail_in = UInt32(input.count)
            while true {
                let (code, produced) = output.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(outputCount)
                    let code = deflate(&stream, flush)
                    return (code, outputCount - Int(stream.avail_out))
                }
                guard code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR else { throw Failure.zlib(code: code) }
                if produced > 0 { try emit(produced) }
                if code == Z_STREAM_END { break }
                if flush != Z_FINISH && stream.avail_in == 0 && produced < outputCount { break }
            }
        }
        pending.removeAll(keepingCapacity: true)
    }

    private func emit(_ count: Int) throws {
        let chunk = Array(output[0..<count])
        var written = 0
        while written < count {
            let result = chunk.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                throw Failure.write(path: path, errno: errno)
            }
            written += result
        }
        outputBytes += count
        onOutput(chunk)
    }
}
