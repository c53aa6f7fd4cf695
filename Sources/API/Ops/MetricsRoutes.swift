import App
import Attribution
import HTTP
import Store

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

    private static func render(_ services: Services, openConnections: @escaping @Sendable () -> Int) -> @Sendable (HTTPRequest) throws -> HTTPResponse {
        { _ in
            let writes = services.app.reports.writeStatistics
            // Metrics are how an operator sees an outage: they keep answering, the database's
            // part left out and the outage told by a gauge.
            let backlog = try? services.app.webhooks.backlog()
            let text = services.metrics.render(counters: [
                ("attributiond_sqlite_commits_total", "Transactions the writer committed.", writes.commits),
                ("attributiond_sqlite_committed_writes_total", "Writes those transactions carried (group commit).", writes.committedWrites),
                ("attributiond_lost_writes_total", "Writes nobody waited for (clicks) that failed, so were not stored.", writes.lostWrites),
            ], gauges: [
                ("attributiond_open_connections", "Connections open now.", Double(openConnections())),
                ("attributiond_write_queue_depth", "Writes waiting for their transaction.", Double(writes.queueDepth)),
                ("attributiond_sqlite_commit_seconds_last", "Duration of the writer's last commit.", writes.lastCommitSeconds),
                ("attributiond_sqlite_commit_batch_last", "Writes in the writer's last commit.", Double(writes.lastBatchSize)),
                ("attributiond_database_up", "1 when the database answered this scrape, 0 when it could not be reached.", backlog == nil ? 0 : 1),
            ])
            let outbox = OutboxMetrics.render(backlog: backlog ?? [], deliveries: services.app.deliveryCounters.snapshot(), now: services.clock.now())
            return HTTPResponse(status: .ok, headers: ["Content-Type": "text/plain; version=0.0.4", "Cache-Control": "no-store"],
                                body: Array((text + outbox).utf8))
        }
    }
}
