import HTTP

extension RouterBuilder {
    /// Registers the two ways a link is addressed, `{prefix}/{code}{suffix}` and
    /// `{prefix}/{templateSlug}/{code}{suffix}`, for one handler that takes the code and the slug.
    /// `inline` handlers run on the connection's event loop (they must do no I/O).
    mutating func linkRoutes(prefix: String = "", suffix: String = "", inline: Bool,
                             _ handler: @escaping @Sendable (_ request: HTTPRequest, _ code: String, _ slug: String?) throws -> HTTPResponse) {
        let withoutSlug: @Sendable (HTTPRequest) throws -> HTTPResponse = { request in
            try handler(request, request.pathParameters["code"]!, nil)
        }
        let withSlug: @Sendable (HTTPRequest) throws -> HTTPResponse = { request in
            try handler(request, request.pathParameters["code"]!, request.pathParameters["slug"]!)
        }
        if inline {
            getInline("\(prefix)/:code\(suffix)", withoutSlug)
            getInline("\(prefix)/:slug/:code\(suffix)", withSlug)
        } else {
            get("\(prefix)/:code\(suffix)", withoutSlug)
            get("\(prefix)/:slug/:code\(suffix)", withSlug)
        }
    }
}
