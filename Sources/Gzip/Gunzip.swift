import CZlib

/// Decompresses a whole gzip document (several members in a row, as `cat a.gz b.gz` makes, read
/// as one): the tests and `export verify` read the files back.
public enum Gunzip {
    public struct Failure: Error, CustomStringConvertible {
        public let code: Int32
        public var description: String { "not a gzip document (zlib \(code))" }
    }

    public static func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        var result: [UInt8] = []
        var offset = 0
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while offset < bytes.count {
            var stream = z_stream()
            guard attributiond_inflate_init_gzip(&stream) == Z_OK else { throw Failure(code: Z_STREAM_ERROR) }
            defer { inflateEnd(&stream) }
            let consumed: Int = try bytes.withUnsafeBufferPointer { input in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress! + offset)
                stream.avail_in = UInt32(input.count - offset)
                while true {
                    let (code, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                        stream.next_out = out.baseAddress
                        stream.avail_out = UInt32(out.count)
                        let code = inflate(&stream, Z_NO_FLUSH)
                        return (code, out.count - Int(stream.avail_out))
                    }
                    result.append(contentsOf: buffer[0..<produced])
                    if code == Z_STREAM_END { break }
                    guard code == Z_OK else { throw Failure(code: code) }
                    if stream.avail_in == 0 { throw Failure(code: Z_DATA_ERROR) }
                }
                return input.count - offset - Int(stream.avail_in)
            }
            offset += consumed
        }
        return result
    }
}
