import Attribution
import Foundation
import HTTP
import Store

/// Ids and nonces the APIs mint.
enum Identifiers {
    static func newID() -> String { UUID().uuidString.lowercased() }

    static func isUUID(_ text: String) -> Bool { text.count == 36 && UUID(uuidString: text) != nil }

    /// 128 random bits as hex, for CSP nonces.
    static func nonce() -> String {
        var generator = SecureRandom()
        let high = generator.next(), low = generator.next()
        return String(unsafeUninitializedCapacity: 32) { text in
            for nibble in 0..<16 {
                let shift = UInt64(60 - 4 * nibble)
                text[nibble] = ByteText.hexDigits[Int(high >> shift & 0xF)]
                text[16 + nibble] = ByteText.hexDigits[Int(low >> shift & 0xF)]
            }
            return 32
        }
    }
}
