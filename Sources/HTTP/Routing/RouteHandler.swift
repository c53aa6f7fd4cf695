/// How a route answers. Most handlers are synchronous and quick; those that wait on something
/// (a group-committed write) take a completion so no thread blocks while they wait.
public enum RouteHandler: Sendable {
    case sync(@Sendable (HTTPRequest) throws -> HTTPResponse)
    case deferred(@Sendable (HTTPRequest, @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Void)
}
