import HTTP

/// `GET /health`: the process is up and serving HTTP. Readiness (the database answers) is
/// `/health/ready`, added with the store.
enum HealthRoutes {
    /// Encoded once: liveness probes hit this path constantly.
    static let okBody = Array(#"{"status":"ok"}"#.utf8)

    static func register(in router: inout RouterBuilder) {
        router.get("/health") { _ in .json(bytes: okBody) }
    }
}
