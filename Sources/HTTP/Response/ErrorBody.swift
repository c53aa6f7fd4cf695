/// The error body shared by every API that does not define its own envelope:
/// `{"error": "<code>", "message": "<text>"}`.
public enum ErrorBody {
    public static func json(code: String, message: String) -> [UInt8] {
        var bytes = Array(#"{"error":"#.utf8)
        ByteText.appendJSONString(code, to: &bytes)
        bytes.append(contentsOf: #","message":"#.utf8)
        ByteText.appendJSONString(message, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }

    public static func response(status: HTTPStatus, code: String, message: String, closesConnection: Bool = false) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: json(code: code, message: message), closesConnection: closesConnection)
    }
}
