internal import COpenSSL

/// Secrets (project tokens, API keys, the admin key) are stored and compared as SHA-256 hashes,
/// computed with OpenSSL; comparisons take the same time whatever the bytes.
public enum Secrets {
    public static func sha256(_ text: String) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }

    /// SHA-256 as 64 lower-case hex digits (digests used as lookup keys, not secrets).
    public static func sha256Hex(_ text: String) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in sha256(text) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// HMAC-SHA256 of `message` with `key`'s UTF-8 bytes (OpenSSL).
    public static func hmacSHA256(key: String, message: [UInt8]) -> [UInt8] {
        hmacSHA256(keyBytes: Array(key.utf8), message: message)
    }

    /// HMAC-SHA256 of `message` with a binary key (OpenSSL).
    public static func hmacSHA256(keyBytes: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        keyBytes.withUnsafeBytes { keyBuffer in
            message.withUnsafeBytes { messageBuffer in
                _ = HMAC(
                    EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count),
                    messageBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBuffer.count, &digest, &length)
            }
        }
        return Array(digest.prefix(Int(length)))
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in _ = SHA256(input.baseAddress, input.count, output.baseAddress) }
        }
        return digest
    }

    /// Constant-time equality (OpenSSL's CRYPTO_memcmp); false at once only when lengths differ.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { a in
            rhs.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }

    /// Whether `presented` is the secret whose hash is `storedHash`.
    public static func matches(_ presented: String, hash storedHash: [UInt8]) -> Bool {
        constantTimeEquals(sha256(presented), storedHash)
    }

    /// A new secret: `prefix` + 32 characters of base62 from OpenSSL's CSPRNG (~190 bits).
    public static func generate(prefix: String) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var result = prefix
        while result.count < prefix.count + 32 {
            var bytes = [UInt8](repeating: 0, count: 48)
            precondition(RAND_bytes(&bytes, Int32(bytes.count)) == 1, "OpenSSL's random generator failed")
            // Rejection sampling keeps every character equally likely (248 = 4 × 62).
            for byte in bytes where byte < 248 && result.count < prefix.count + 32 {
                result.append(alphabet[Int(byte) % 62])
            }
        }
        return result
    }

    /// `count` bytes from OpenSSL's CSPRNG (webhook signing keys).
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        precondition(RAND_bytes(&bytes, Int32(count)) == 1, "OpenSSL's random generator failed")
        return bytes
    }
}
