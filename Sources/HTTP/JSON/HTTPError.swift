/// An error a handler throws to answer with a specific status and the standard error body
/// `{"error": "<code>", "message": "<text>"}`. APIs with their own envelope map it themselves.
public struct HTTPError: Error, Sendable, CustomStringConvertible {
    public var status: HTTPStatus
    public var code: String
    public var message: String
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, code: String, message: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    public var response: HTTPResponse {
        var response = ErrorBody.response(status: status, code: code, message: message)
        for field in headers { response.headers.add(field.name, field.value) }
        return response
    }

    public static func badRequest(_ message: String, code: String = "bad_request") -> HTTPError {
        HTTPError(.badRequest, code: code, message: message)
    }

    /// Well-formed input whose values are not acceptable, naming the field.
    public static func invalidField(_ field: String, _ message: String) -> HTTPError {
        HTTPError(.unprocessableContent, code: "invalid_field", message: "\(field): \(message)")
    }

    public static func notFound(_ message: String) -> HTTPError {
        HTTPError(.notFound, code: "not_found", message: message)
    }

    public static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, code: "unauthorized", message: message)
    }

    public static func conflict(_ message: String) -> HTTPError {
        HTTPError(.conflict, code: "conflict", message: message)
    }
}
