/// How a route answers.
public enum RouteHandler: Sendable {
    /// May block (database reads, waiting for a commit): runs on the handler pool.
    case sync(@Sendable (HTTPRequest) throws -> HTTPResponse)
    /// Quick and never blocks: runs on the connection's own queue, saving two thread hand-offs
    /// per request. For hot paths only (health, clicks, resolve).
    case inline(@Sendable (HTTPRequest) throws -> HTTPResponse)
    /// Answers later through the completion, from any thread; must not block before returning.
    case deferred(@Sendable (HTTPRequest, @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Void)
    /// Runs on the handler pool, like `.sync`, and answers through the completion, from any thread:
    /// for handlers that read before they queue a write whose commit answers.
    case pooled(@Sendable (HTTPRequest, @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Void)
}
