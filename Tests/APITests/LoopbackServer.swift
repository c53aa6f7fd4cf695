import HTTP

extension HTTPServer {
    /// A fake of an outside service on 127.0.0.1 (a free port), draining fast when the test ends.
    static func loopback(_ router: RouterBuilder) throws -> HTTPServer {
        var limits = HTTPServerLimits()
        limits.drainTimeout = .milliseconds(50)
        let server = HTTPServer(host: "127.0.0.1", port: 0, limits: limits, responder: router.build())
        try server.start()
        return server
    }
}
