internal import COpenSSL
import Foundation

/// Dashboard passwords, hashed with PBKDF2-HMAC-SHA256 through OpenSSL (`PKCS5_PBKDF2_HMAC`):
/// a random 16-byte salt per password and OWASP's 2023 iteration count for this PRF, stored as
/// `pbkdf2-sha256$<iterations>$<salt>$<key>` (base64) so the count can rise without a migration.
public enum PasswordHash {
    public static let iterations = 600_000

    public static func make(_ password: String, iterations: Int = iterations) -> String {
        let salt = Secrets.randomBytes(16)
        let key = derive(password, salt: salt, iterations: iterations)
        return "pbkdf2-sha256$\(iterations)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Whether `password` is the one `stored` was made from; the comparison takes the same time
    /// whatever the bytes. A malformed `stored` matches nothing.
    public static func verify(_ password: String, stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let iterations = Int(parts[1]), (1...10_000_000).contains(iterations),
            let salt = Data(base64Encoded: String(parts[2])), let key = Data(base64Encoded: String(parts[3])), !key.isEmpty
        else { return false }
        return Secrets.constantTimeEquals(derive(password, salt: Array(salt), iterations: iterations, length: key.count), Array(key))
    }

    private static func derive(_ password: String, salt: [UInt8], iterations: Int, length: Int = 32) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: length)
        let passwordBytes = Array(password.utf8)
        let status = passwordBytes.withUnsafeBufferPointer { passwordBuffer in
            passwordBuffer.withMemoryRebound(to: CChar.self) { passwordChars in
                PKCS5_PBKDF2_HMAC(
                    passwordChars.baseAddress, Int32(passwordChars.count), salt, Int32(salt.count),
                    Int32(iterations), EVP_sha256(), Int32(length), &key)
            }
        }
        precondition(status == 1, "OpenSSL's PBKDF2 failed")
        return key
    }
}
