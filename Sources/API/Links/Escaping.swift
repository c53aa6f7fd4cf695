import HTTP

/// Escaping for the two contexts our pages put values in. The byte forms append straight into a
/// page being built; a value with nothing to escape (the usual case) is copied in one go.
enum Escape {
    /// Text and attribute values in HTML (`&<>"'`).
    static func html(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendHTML(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendHTML(_ text: String, to bytes: inout [UInt8]) {
        func special(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
                || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
        }
        guard text.utf8.contains(where: special) else {
            bytes.append(contentsOf: text.utf8)
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): bytes.append(contentsOf: "&#39;".utf8)
            default: bytes.append(byte)
            }
        }
    }

    /// A JavaScript string literal that is also safe inside `<script>`: `<`, `>`, `&` and the
    /// line separators are escaped so nothing in the value can close the script element.
    static func javascriptString(_ text: String) -> String {
        var bytes: [UInt8] = []
        appendJavascriptString(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendJavascriptString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        defer { bytes.append(UInt8(ascii: "\"")) }
        // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8: any E2 sends the value the slow way.
        guard
            text.utf8.contains(where: { byte in
                byte < 0x20 || byte == 0xE2 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                    || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&")
            })
        else {
            bytes.append(contentsOf: text.utf8)
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": bytes.append(contentsOf: #"\""#.utf8)
            case "\\": bytes.append(contentsOf: #"\\"#.utf8)
            case "\n": bytes.append(contentsOf: #"\n"#.utf8)
            case "\r": bytes.append(contentsOf: #"\r"#.utf8)
            case "<": bytes.append(contentsOf: #"\u003c"#.utf8)
            case ">": bytes.append(contentsOf: #"\u003e"#.utf8)
            case "&": bytes.append(contentsOf: #"\u0026"#.utf8)
            case "\u{2028}": bytes.append(contentsOf: #"\u2028"#.utf8)
            case "\u{2029}": bytes.append(contentsOf: #"\u2029"#.utf8)
            default:
                if scalar.value < 0x20 {
                    bytes.append(contentsOf: #"\u00"#.utf8)
                    bytes.append(ByteText.hexDigits[Int(scalar.value >> 4)])
                    bytes.append(ByteText.hexDigits[Int(scalar.value & 0xF)])
                } else {
                    bytes.append(contentsOf: String(scalar).utf8)
                }
            }
        }
    }
}
