import Cryptography
import Foundation
import StoreContracts

/// Standard Webhooks signing (standardwebhooks.com): `v1,<base64 HMAC-SHA256(key,
/// "<id>.<timestamp>.<body>")>`, the key being the base64 after `whsec_`; several signatures
/// (secret rotation) are separated by spaces.
public enum WebhookSignature {
    public static let secretPrefix = "whsec_"

    /// A new secret: `whsec_` and the base64 of 32 random bytes.
    public static func newSecret() -> String { secretPrefix + Data(Secrets.randomBytes(32)).base64EncodedString() }

    /// The key bytes of a secret; nil when it is not `whsec_<base64>`.
    public static func key(of secret: String) -> [UInt8]? {
        guard secret.hasPrefix(secretPrefix), let data = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count))) else { return nil }
        return Array(data)
    }

    /// The `webhook-signature` value for `body`, signed with every secret given (in order).
    public static func header(id: String, timestamp: Int64, body: [UInt8], secrets: [String]) -> String {
        let signed = Array("\(id).\(timestamp).".utf8) + body
        return secrets.compactMap(key(of:)).map { key in
            "v1," + Data(Secrets.hmacSHA256(keyBytes: key, message: signed)).base64EncodedString()
        }.joined(separator: " ")
    }
}
