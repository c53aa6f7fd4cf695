public import Attribution
internal import COpenSSL
import Synchronization

/// Random numbers from OpenSSL's DRBG, which is cryptographically secure and runs in user space:
/// ids and nonces on request paths need unpredictable bits, not a `getrandom` system call each.
public struct SecureRandom: RandomNumberGenerator {
    public init() {}

    /// Bytes drawn from OpenSSL 4 KiB at a time and handed out once each. A `RAND_bytes` call costs
    /// about a microsecond of locking and generator set-up whatever its length, and every click and
    /// install id takes two draws: that was 6% of an event loop's time on `init`.
    private struct Pool {
        var bytes = [UInt8](repeating: 0, count: 4096)
        var next = 4096
    }
    private static let pool = Mutex(Pool())

    public mutating func next() -> UInt64 {
        let drawn = Self.pool.withLock { pool -> UInt64? in
            if pool.next + 8 > pool.bytes.count {
                let filled = pool.bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress!, Int32($0.count)) }
                guard filled == 1 else { return nil }
                pool.next = 0
            }
            let offset = pool.next
            pool.next += 8
            return pool.bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        }
        if let drawn { return drawn }
        // OpenSSL could not seed itself: fall back to the kernel, which never fails this way.
        var system = SystemRandomNumberGenerator()
        return system.next()
    }
}

extension TimeOrderedID {
    /// A UUIDv7 for `time` with its random bits from `SecureRandom`.
    public static func secure(at time: Timestamp) -> String {
        var generator = SecureRandom()
        return generate(at: time, using: &generator)
    }
}
