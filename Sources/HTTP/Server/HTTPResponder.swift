/// What the server hands each complete request to. `completion` must be called exactly once, from
/// any thread. `respond` is called on the connection's event loop, so it must not block: a
/// responder that does blocking work moves it elsewhere first (the router does for `.sync` routes).
/// The server writes responses in request order whatever order they complete in.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void)
}

/// A responder that also says which route pattern answered (nil when none matched), so an
/// observer counting requests by route need not match the path a second time.
public protocol RoutedResponder: HTTPResponder {
    func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse, _ pattern: String?) -> Void)
}

extension RoutedResponder {
    public func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void) {
        respond(to: request) { response, _ in completion(response) }
    }
}
