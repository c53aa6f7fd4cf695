/// What the server hands each complete request to. `completion` must be called exactly once, from
/// any thread. `respond` is called on the connection's I/O queue, so it must not block: a
/// responder that does blocking work moves it elsewhere first (the router does for `.sync` routes).
/// The server writes responses in request order whatever order they complete in.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void)
}
