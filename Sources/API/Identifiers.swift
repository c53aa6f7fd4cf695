import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts

/// Ids and nonces the APIs mint.
enum Identifiers {
    static func newID() -> String { UUID().uuidString.lowercased() }

    static func isUUID(_ text: String) -> Bool { text.count == 36 && UUID(uuidString: text) != nil }

    /// A device identifier an SDK sent (IDFV, IDFA, GAID, WarpLink's `device_id`), trimmed and at
    /// most 128 characters; nil for the all-zero one (what iOS sends when the user limits
    /// tracking, or a device that withholds it), which identifies nobody.
    static func realDeviceIdentifier(_ text: String) -> String? {
        let trimmed = text.trimmingWhitespace()
        guard trimmed.utf8.contains(where: { $0 != UInt8(ascii: "0") && $0 != UInt8(ascii: "-") }) else { return nil }
        return trimmed.utf8.count <= 128 ? trimmed : String(trimmed.prefix(128))
    }

    /// The click id of an app's tap id (WarpLink's `X-WarpLink-Tap-Id`): the same on every retry
    /// of the tap, and apart per project, so one project's tap ids cannot collide with another's.
    /// A UUID of version 8 (RFC 9562 §5.8) from SHA-256 of both.
    static func clickID(forTap tapID: String, projectID: String) -> String {
        var digest = Array(Secrets.sha256Hex(projectID + "\u{1F}" + tapID).utf8.prefix(32))
        digest[12] = UInt8(ascii: "8")
        digest[16] = ByteText.hexDigits[Int(8 | (Self.hexValue(digest[16]) & 0x3))]
        var text = String(decoding: digest, as: UTF8.self)
        for position in [8, 13, 18, 23] { text.insert("-", at: text.index(text.startIndex, offsetBy: position)) }
        return text
    }

    private static func hexValue(_ digit: UInt8) -> UInt8 { digit <= UInt8(ascii: "9") ? digit - UInt8(ascii: "0") : digit - UInt8(ascii: "a") + 10 }

    /// 128 random bits as hex, for CSP nonces.
    static func nonce() -> String {
        var generator = SecureRandom()
        let high = generator.next()
        let low = generator.next()
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
