/// Text appended straight to a byte buffer, for bodies, headers and log lines built on every
/// request: no intermediate `String` per number, no array per escape.
public enum ByteText {
    /// Lowercase hexadecimal digits, by value.
    public static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `value` in decimal.
    public static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            // Int.min has no positive counterpart; its magnitude fits a UInt.
            appendDecimal(magnitude: value.magnitude, to: &bytes)
        } else {
            appendDecimal(magnitude: UInt(value), to: &bytes)
        }
    }

    private static func appendDecimal(magnitude value: UInt, to bytes: inout [UInt8]) {
        if value < 10 {
            bytes.append(0x30 + UInt8(value))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for UInt.max's 20 digits
        withUnsafeMutableBytes(of: &digits) { buffer in
            var count = 0
            var rest = value
            while rest > 0 {
                buffer[count] = 0x30 + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// A JSON string literal (RFC 8259 §7): quotes, backslashes and control characters escaped,
    /// everything else (UTF-8 included) as is.
    public static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most strings need no escape at all: checked and copied in one go over their contiguous
        // UTF-8 (`utf8.contains(where:)` with a closure cost ~2% of a webhook-writing server's CPU).
        var text = text
        let copied = text.withUTF8 { buffer -> Bool in
            for byte in buffer where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        if copied {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(0x5C)
                bytes.append(byte)
            case 0x0A:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "n"))
            case 0x0D:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "r"))
            case 0x09:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(hexDigits[Int(byte >> 4)])
                bytes.append(hexDigits[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
