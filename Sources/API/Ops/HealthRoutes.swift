import App
import HTTP
import StoreContracts

/// `GET /health`: the process is up and serving HTTP. `GET /health/ready`: the database answers
/// (503 otherwise), for load balancers and container health checks.
enum HealthRoutes {
    /// Encoded once: liveness probes hit this path constantly.
    static let okBody = Array(#"{"status":"ok"}"#.utf8)
    static let readyBody = Array(#"{"status":"ready"}"#.utf8)

    /// `GET /health`
    static let live = RouteHandler.inline { _ in .json(bytes: okBody) }

    /// `GET /health/ready`
    static func ready(_ services: Services) -> RouteHandler {
        .sync { _ in
            do {
                try services.app.reports.ping()
                return .json(bytes: readyBody)
            } catch {
                let full: Bool
                if case .storageFull? = error as? StoreError { full = true } else { full = false }
                let message = full ? "the server's disk is full: writes fail until space is freed" : "the database does not answer"
                var response = ErrorBody.response(status: .serviceUnavailable, code: "not_ready", message: message)
                response.headers.add("Retry-After", "1")
                return response
            }
        }
    }
}
