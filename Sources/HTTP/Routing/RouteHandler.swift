/// How a route answers.
public enum RouteHandler: Sendable {
    /// May block (database reads, waiting for a commit): runs on the handler pool.
    case sync(@Sendable (HTTPRequest) throws -> HTTPResponse)
    /// Quick and never blocks: runs on the connection's event loop, saving two thread hand-offs
    /// per request. For hot paths only (health, clicks, resolve).
    case inline(@Sendable (HTTPRequest) throws -> HTTPResponse)
    /// Answers later through the completion, from any thread; must not block before returning.
    case deferred(@Sendable (HTTPRequest, @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Void)
    /// Runs on the handler pool, like `.sync`, and answers through the completion, from any thread:
    /// for handlers that read before they queue a write whose commit answers.
    case pooled(@Sendable (HTTPRequest, @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Void)
}

/// Thrown by a handler running on an event loop (an inline handler, or a deferred one before it
/// hands anything on) when it finds it must wait on I/O after all, typically a cache miss: the
/// router runs the same handler again on the handler pool, where it may block. A hit stays on
/// the loop; only the miss pays for the move.
public struct MoveToPool: Error, Sendable {
    public init() {}

    /// Throws when called on an event loop: put it before the first blocking call of a path that
    /// usually answers from memory.
    public static func unlessOffLoop() throws {
        if EventLoopThread.isCurrent { throw MoveToPool() }
    }
}
