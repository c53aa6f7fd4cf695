/// What the server hands each complete request to. `completion` must be called exactly once, from
/// any thread; the server writes responses in request order whatever order they complete in.
public protocol HTTPResponder: Sendable {
    func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void)
}
