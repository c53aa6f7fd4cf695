/// One outbound HTTP request and what came back.
public struct OutboundRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// How much of the answer's body comes back in `bodyPrefix`: a kilobyte for deliveries (what
    /// the deliveries list shows); whole JSON documents for Apple's APIs.
    public var keptResponseBytes: Int

    public init(method: String, url: String, headers: [(name: String, value: String)], body: [UInt8], keptResponseBytes: Int = 1024) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.keptResponseBytes = keptResponseBytes
    }
}

public struct OutboundResponse: Sendable {
    public var statusCode: Int
    public var headers: [String: String]
    /// The body's first `keptResponseBytes` (a kilobyte unless the request asked for more).
    public var bodyPrefix: String

    public init(statusCode: Int, headers: [String: String], bodyPrefix: String) {
        self.statusCode = statusCode
        self.headers = headers
        self.bodyPrefix = bodyPrefix
    }

    /// The first kilobyte of the body, as the deliveries list shows every answer.
    public var shownBody: String {
        bodyPrefix.utf8.count <= 1024 ? bodyPrefix : String(decoding: bodyPrefix.utf8.prefix(1024), as: UTF8.self)
    }
}

/// Sends outbound requests; the worker's only way out (tests put a fake in its place).
public protocol OutboundTransport: Sendable {
    func send(_ request: OutboundRequest, completion: @escaping @Sendable (Result<OutboundResponse, any Error>) -> Void)
}

/// The address a connection would have gone to, refused by the outbound policy at connect time.
public struct OutboundAddressRefused: Error, CustomStringConvertible {
    public let address: String

    public init(address: String) { self.address = address }

    public var description: String {
        "refused: the receiver's address \(address) is private or local (set outbound.allow_private_addresses to allow)"
    }
}
