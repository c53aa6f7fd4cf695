import Foundation
import HTTP

/// Linkrunner's envelope, on every response, errors included: `{"status": <http code>, "msg":
/// "<text>", "data": {...} | null}` with the same code as the HTTP status.
enum Envelope {
    static func ok(_ data: [String: JSONValue], msg: String = "success") -> HTTPResponse {
        response(status: .ok, msg: msg, data: .object(data))
    }

    static func error(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        response(status: status, msg: message, data: .null)
    }

    /// Any error a handler throws, in the envelope: client mistakes keep their 4xx.
    static func from(_ error: any Error) -> HTTPResponse {
        guard let clientError = ClientErrors.httpError(for: error) else {
            return Self.error(.internalServerError, "the server could not complete the request")
        }
        return Self.error(clientError.status, clientError.message)
    }

    /// Written directly in the sorted key order the JSON serializer would give (data, msg, status),
    /// without building the outer object.
    private static func response(status: HTTPStatus, msg: String, data: JSONValue) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(256)
        body.append(contentsOf: #"{"data":"#.utf8)
        data.append(to: &body)
        body.append(contentsOf: #","msg":"#.utf8)
        ByteText.appendJSONString(msg, to: &body)
        body.append(contentsOf: #","status":"#.utf8)
        ByteText.appendDecimal(status.code, to: &body)
        body.append(UInt8(ascii: "}"))
        return HTTPResponse.json(bytes: body, status: status)
    }
}
