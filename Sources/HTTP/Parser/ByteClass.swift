/// Character classes of RFC 9110 §5.6, as lookup tables over bytes.
enum ByteClass {
    /// tchar: "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA
    static let token: [Bool] = (0..<256).map { (value: Int) in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// field-vchar / SP / HTAB (RFC 9110 §5.5); obs-text (0x80–0xFF) is allowed as opaque data.
    static let fieldValue: [Bool] = (0..<256).map { (value: Int) in
        value == 0x09 || (value >= 0x20 && value != 0x7F)
    }

    /// Bytes allowed in a request-target: visible ASCII except `#` (fragments are never sent,
    /// RFC 9112 §3.2) — percent-encoding is checked separately.
    static let target: [Bool] = (0..<256).map { (value: Int) in
        value >= 0x21 && value <= 0x7E && value != Int(UInt8(ascii: "#"))
    }

    static func isHexDigit(_ byte: UInt8) -> Bool { PercentDecoding.hexValue(byte) != nil }
}
