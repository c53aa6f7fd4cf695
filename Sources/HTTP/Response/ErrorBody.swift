/// The error body shared by every API that does not define its own envelope:
/// `{"error": "<code>", "message": "<text>"}`.
public enum ErrorBody {
    public static func json(code: String, message: String) -> [UInt8] {
        var bytes = Array(#"{"error":"#.utf8)
        appendJSONString(code, to: &bytes)
        bytes.append(contentsOf: #","message":"#.utf8)
        appendJSONString(message, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    public static func response(status: HTTPStatus, code: String, message: String, closesConnection: Bool = false) -> HTTPResponse {
        HTTPResponse(status: status,
                     headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
                     body: json(code: code, message: message), closesConnection: closesConnection)
    }

    /// A JSON string literal (RFC 8259 §7) — used where a JSONEncoder would be overkill.
    public static func appendJSONString(_ text: String, to bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
