import HTTP

/// Routes that address a link two ways, `{prefix}/{code}{suffix}` and
/// `{prefix}/{templateSlug}/{code}{suffix}`: one handler takes the code and the slug (nil under
/// the first pattern).
enum LinkAddressed {
    /// Runs on the handler pool (the click-recording routes, which run on the event loop, are
    /// `ClickCommit.route`s).
    static func handler(
        _ handler: @escaping @Sendable (_ request: HTTPRequest, _ code: String, _ slug: String?) throws -> HTTPResponse
    ) -> RouteHandler {
        let handle: @Sendable (HTTPRequest) throws -> HTTPResponse = { request in
            try handler(request, request.pathParameters["code"]!, request.pathParameters["slug"])
        }
        return .sync(handle)
    }
}
