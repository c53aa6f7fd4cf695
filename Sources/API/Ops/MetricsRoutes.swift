import App
import Attribution
import Cryptography
import HTTP
import StoreContracts

/// `GET /metrics`: Prometheus text, behind the admin key or the read-only `metrics_token`.
enum MetricsRoutes {
    /// `GET /metrics`
    static func metrics(_ services: Services, openConnections: @escaping @Sendable () -> Int) -> RouteHandler {
        let admin = AdminAuth(services: services)
        let render = render(services, openConnections: openConnections)
        let asAdmin = admin.guarded(render)
        // A scraper's own token reads the metrics and nothing else; anything else is the admin key's.
        return .sync { request in
            if let hash = services.metricsTokenHash, let presented = BearerToken.from(request), Secrets.matches(presented, hash: hash) {
                return try render(request)
            }
            return try asAdmin(request)
        }
    }

    private static func render(_ services: Services, openConnections: @escaping @Sendable () -> Int) -> @Sendable (HTTPRequest) throws -> HTTPResponse
    {
        { _ in
            let writes = services.app.reports.writeStatistics
            // Metrics are how an operator sees an outage: they keep answering, the database's
            // part left out and the outage told by a gauge.
            let backlog = try? services.app.webhooks.backlog()
            var out = PrometheusText()
            services.metrics.render(to: &out)
            // The store's writer, whichever the backend (SQLite's one writer, PostgreSQL's lanes).
            out.counter("attributiond_store_commits_total", "Transactions the writer committed.", writes.commits)
            out.counter("attributiond_store_committed_writes_total", "Writes those transactions carried (group commit).", writes.committedWrites)
            out.counter("attributiond_lost_writes_total", "Writes nobody waited for (clicks) that failed, so were not stored.", writes.lostWrites)
            out.gauge("attributiond_open_connections", "Connections open now.", Double(openConnections()))
            out.gauge("attributiond_write_queue_depth", "Writes waiting for their transaction.", Double(writes.queueDepth))
            out.gauge("attributiond_store_commit_seconds_last", "Duration of the writer's last commit.", writes.lastCommitSeconds)
            out.gauge("attributiond_store_commit_batch_last", "Writes in the writer's last commit.", Double(writes.lastBatchSize))
            out.gauge("attributiond_database_up", "1 when the database answered this scrape, 0 when it could not be reached.", backlog == nil ? 0 : 1)
            if let certificates = try? services.app.domains.certificates().values.sorted(by: { $0.domain < $1.domain }), !certificates.isEmpty {
                out.gauge(
                    "attributiond_certificate_expiry_seconds", "When each domain's certificate expires (seconds since 1970).",
                    certificates.compactMap { record in record.notAfter.map { ([("domain", record.domain)], Double($0)) } })
            }
            OutboxMetrics.render(backlog: backlog ?? [], deliveries: services.app.deliveryCounters.snapshot(), now: services.clock.now(), to: &out)
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4", "Cache-Control": "no-store"],
                body: Array(out.text.utf8))
        }
    }
}
