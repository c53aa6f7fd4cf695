/// Collects routes before the server starts; `build()` freezes them into an immutable `Router`.
///
/// Patterns are paths whose segments are literals or `:name` parameters:
/// `/api/sdk/v1/resolve/:code`. A literal segment always wins over a parameter at the same depth,
/// and a parameter in the first segment never matches a reserved prefix, so `/:code` (the link
/// catch-all) cannot swallow `/api/...` or `/admin/...`.
public struct RouterBuilder {
    struct Entry {
        var method: HTTPMethod
        var pattern: String
        var handler: RouteHandler
    }

    private(set) var entries: [Entry] = []
    private(set) var reservedFirstSegments: Set<String> = []
    /// Answers requests that match no route (404 JSON by default).
    public var notFound: @Sendable (HTTPRequest) -> HTTPResponse = { request in
        ErrorBody.response(status: .notFound, code: "not_found", message: "no route for \(request.method) \(request.path)")
    }
    /// Turns an error a handler threw into a response (500 unless it is an `HTTPError`).
    public var errorResponse: @Sendable (any Error, HTTPRequest) -> HTTPResponse = Router.defaultErrorResponse

    public init() {}

    /// First path segments that parameters never match (they belong to fixed routes).
    public mutating func reserve(_ firstSegments: String...) {
        reservedFirstSegments.formUnion(firstSegments)
    }

    public mutating func on(_ method: HTTPMethod, _ pattern: String, _ handler: RouteHandler) {
        precondition(pattern.hasPrefix("/"), "route pattern must start with '/': \(pattern)")
        precondition(!entries.contains { $0.method == method && $0.pattern == pattern }, "duplicate route \(method) \(pattern)")
        entries.append(Entry(method: method, pattern: pattern, handler: handler))
    }

    public mutating func get(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        on(.get, pattern, .sync(handler))
    }

    /// A GET route that is quick and never blocks (see `RouteHandler.inline`).
    public mutating func getInline(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        on(.get, pattern, .inline(handler))
    }

    public mutating func post(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        on(.post, pattern, .sync(handler))
    }

    public mutating func put(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        on(.put, pattern, .sync(handler))
    }

    public mutating func patch(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        on(.patch, pattern, .sync(handler))
    }

    public mutating func delete(_ pattern: String, _ handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        on(.delete, pattern, .sync(handler))
    }

    public func build() -> Router { Router(self) }
}
