/// A response as a handler builds it. `Date`, `Content-Length` and `Connection` are added when it is
/// written, so handlers never set them.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// Close the connection after this response, whatever the client asked.
    public var closesConnection: Bool

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = [], closesConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closesConnection = closesConnection
    }

    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }
}
