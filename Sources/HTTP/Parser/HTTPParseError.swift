/// Why a request could not be framed. A struct around a private enum (as SwiftNIO's
/// `HTTPParserError`) so cases can be added without breaking callers; each carries the status to
/// answer with and a message that tells the client what to fix.
public struct HTTPParseError: Error, Equatable, Sendable, CustomStringConvertible {
    enum Kind: Equatable, Sendable {
        case badRequest
        case targetTooLong
        case headersTooLarge
        case contentTooLarge
        case unsupportedVersion
        case unsupportedTransferCoding
        case expectationFailed
        case requestTimeout
        /// Not the request's fault: the server cannot hold it now (`maxBufferedBodyBytes`).
        case overloaded
    }

    let kind: Kind
    public let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var status: HTTPStatus {
        switch kind {
        case .badRequest: .badRequest
        case .targetTooLong: .uriTooLong
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .contentTooLarge: .contentTooLarge
        case .unsupportedVersion: .httpVersionNotSupported
        case .unsupportedTransferCoding: .notImplemented
        case .expectationFailed: .expectationFailed
        case .requestTimeout: .requestTimeout
        case .overloaded: .serviceUnavailable
        }
    }

    /// The `error` code of the JSON error body.
    public var code: String {
        switch kind {
        case .badRequest: "bad_request"
        case .targetTooLong: "uri_too_long"
        case .headersTooLarge: "header_fields_too_large"
        case .contentTooLarge: "content_too_large"
        case .unsupportedVersion: "http_version_not_supported"
        case .unsupportedTransferCoding: "unsupported_transfer_coding"
        case .expectationFailed: "expectation_failed"
        case .requestTimeout: "request_timeout"
        case .overloaded: "overloaded"
        }
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    static func bad(_ message: String) -> HTTPParseError { HTTPParseError(.badRequest, message) }
}
