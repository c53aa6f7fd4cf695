internal import COpenSSL
public import Attribution

/// Random numbers from OpenSSL's DRBG, which is cryptographically secure and runs in user space:
/// ids and nonces on request paths need unpredictable bits, not a `getrandom` system call each.
public struct SecureRandom: RandomNumberGenerator {
    public init() {}

    public mutating func next() -> UInt64 {
        var value: UInt64 = 0
        let status = withUnsafeMutableBytes(of: &value) { RAND_bytes($0.baseAddress!.assumingMemoryBound(to: UInt8.self), 8) }
        if status == 1 { return value }
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
