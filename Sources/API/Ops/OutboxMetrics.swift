import App
import Attribution
import Store

/// The outbox's part of /metrics: jobs waiting and failed by kind, the age of the oldest waiting
/// one, attempts by kind and outcome class, and attempt latency.
enum OutboxMetrics {
    static let kinds = ["webhook", "postback", "apple_ads"]

    static func render(backlog: [OutboxBacklog], deliveries: DeliveryCounters.Snapshot, now: Timestamp) -> String {
        var out = "# HELP attributiond_outbox_jobs Jobs not delivered, by kind and status (pending: waiting for an attempt; failed: no attempts left).\n"
        out += "# TYPE attributiond_outbox_jobs gauge\n"
        for kind in kinds {
            for status in [OutboxJob.Status.pending, .failed] {
                let count = backlog.first { $0.kind == kind && $0.status == status }?.count ?? 0
                out += "attributiond_outbox_jobs{kind=\"\(kind)\",status=\"\(status.rawValue)\"} \(count)\n"
            }
        }
        out += "# HELP attributiond_outbox_oldest_pending_seconds Age of the oldest job waiting for an attempt, by kind.\n"
        out += "# TYPE attributiond_outbox_oldest_pending_seconds gauge\n"
        for kind in kinds {
            let oldest = backlog.first { $0.kind == kind && $0.status == .pending }?.oldest
            let age = oldest.map { max(0, Double(now.milliseconds - $0.milliseconds) / 1000) } ?? 0
            out += "attributiond_outbox_oldest_pending_seconds{kind=\"\(kind)\"} \(age)\n"
        }
        out += "# HELP attributiond_outbox_in_flight Requests to receivers under way.\n# TYPE attributiond_outbox_in_flight gauge\n"
        out += "attributiond_outbox_in_flight \(deliveries.inFlight)\n"
        out += "# HELP attributiond_outbox_attempts_total Delivery attempts by kind and outcome (status class, or error: no answer).\n"
        out += "# TYPE attributiond_outbox_attempts_total counter\n"
        for kind in deliveries.attempts.keys.sorted() {
            for outcome in deliveries.attempts[kind]!.keys.sorted() {
                out += "attributiond_outbox_attempts_total{kind=\"\(kind)\",outcome=\"\(outcome)\"} \(deliveries.attempts[kind]![outcome]!)\n"
            }
        }
        out += "# HELP attributiond_outbox_attempt_duration_seconds Time from sending a delivery to its answer.\n"
        out += "# TYPE attributiond_outbox_attempt_duration_seconds histogram\n"
        var cumulative = 0
        for (index, bound) in DeliveryCounters.latencyBuckets.enumerated() {
            cumulative += deliveries.latencyCounts[index]
            out += "attributiond_outbox_attempt_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        cumulative += deliveries.latencyCounts[DeliveryCounters.latencyBuckets.count]
        out += "attributiond_outbox_attempt_duration_seconds_bucket{le=\"+Inf\"} \(cumulative)\n"
        out += "attributiond_outbox_attempt_duration_seconds_sum \(deliveries.latencySum)\n"
        out += "attributiond_outbox_attempt_duration_seconds_count \(cumulative)\n"
        return out
    }
}
