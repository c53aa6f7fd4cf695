/// One outbound HTTP request and what came back.
public struct OutboundRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, url: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct OutboundResponse: Sendable {
    public var statusCode: Int
    public var headers: [String: String]
    /// The first kilobyte of the body (what the deliveries list shows).
    public var bodyPrefix: String

    public init(statusCode: Int, headers: [String: String], bodyPrefix: String) {
        self.statusCode = statusCode
        self.headers = headers
        self.bodyPrefix = bodyPrefix
    }
}

/// Sends outbound requests; the worker's only way out (tests put a fake in its place).
public protocol OutboundTransport: Sendable {
    func send(_ request: OutboundRequest, completion: @escaping @Sendable (Result<OutboundResponse, any Error>) -> Void)
}
