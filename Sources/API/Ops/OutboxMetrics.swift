import App
import Attribution
import StoreContracts

/// The outbox's part of /metrics: jobs waiting and failed by kind, the age of the oldest waiting
/// one, attempts by kind and outcome class, and attempt latency.
enum OutboxMetrics {
    static let kinds = ["webhook", "postback", "apple_ads", AdPlatform.jobKind]

    static func render(backlog: [OutboxBacklog], deliveries: DeliveryCounters.Snapshot, now: Timestamp, to out: inout PrometheusText) {
        out.gauge(
            "attributiond_outbox_jobs", "Jobs not delivered, by kind and status (pending: waiting for an attempt; failed: no attempts left).",
            kinds.flatMap { kind in
                [OutboxJob.Status.pending, .failed].map { status in
                    ([("kind", kind), ("status", status.rawValue)], Double(backlog.first { $0.kind == kind && $0.status == status }?.count ?? 0))
                }
            })
        out.gauge(
            "attributiond_outbox_oldest_pending_seconds", "Age of the oldest job waiting for an attempt, by kind.",
            kinds.map { kind in
                let oldest = backlog.first { $0.kind == kind && $0.status == .pending }?.oldest
                return ([("kind", kind)], oldest.map { max(0, Double(now.milliseconds - $0.milliseconds) / 1000) } ?? 0)
            })
        out.gauge("attributiond_outbox_in_flight", "Requests to receivers under way.", Double(deliveries.inFlight))
        out.counter(
            "attributiond_outbox_attempts_total", "Delivery attempts by kind and outcome (status class, or error: no answer).",
            deliveries.attempts.keys.sorted().flatMap { kind in
                deliveries.attempts[kind]!.keys.sorted().map { outcome in
                    ([("kind", kind), ("outcome", outcome)], deliveries.attempts[kind]![outcome]!)
                }
            })
        out.histogram("attributiond_outbox_attempt_duration_seconds", "Time from sending a delivery to its answer.", deliveries.latency)
        out.counter(
            "attributiond_ad_platform_refused_total",
            "Ad-platform deliveries not sent, by platform and reason (consent, no_device_id, not_mapped, too_old, not_configured…).",
            deliveries.adPlatformRefusals.keys.sorted().flatMap { platform in
                deliveries.adPlatformRefusals[platform]!.keys.sorted().map { reason in
                    ([("platform", platform), ("reason", reason)], deliveries.adPlatformRefusals[platform]![reason]!)
                }
            })
    }
}
