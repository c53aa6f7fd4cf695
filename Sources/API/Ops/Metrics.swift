import Foundation
import Synchronization

/// Counters and histograms for `GET /metrics` (Prometheus text format 0.0.4). Label sets are
/// bounded: routes are patterns (`/:code`), never raw paths.
public final class Metrics: @unchecked Sendable {
    static let durationBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    // Everything below is guarded by `lock`.
    private let lock = NSLock()
    private var requests: [String: [Int: Int]] = [:]           // route → status → count
    private var durationCounts = [Int](repeating: 0, count: Metrics.durationBuckets.count + 1)
    private var durationSum = 0.0
    private var installs: [String: Int] = [:]                  // match type → count
    private let clicks = Atomic<Int>(0)
    private let collapsedEvents = Atomic<Int>(0)

    public init() {}

    /// A LinkForty event identical to one stored (same install, name, data and second) was not
    /// stored again.
    public func recordCollapsedEvent() { collapsedEvents.add(1, ordering: .relaxed) }

    func recordRequest(route: String, status: Int, seconds: Double) {
        let bucket = Self.durationBuckets.firstIndex { seconds <= $0 } ?? Self.durationBuckets.count
        lock.lock()
        requests[route, default: [:]][status, default: 0] += 1
        durationCounts[bucket] += 1
        durationSum += seconds
        lock.unlock()
    }

    public func recordClick() { clicks.add(1, ordering: .relaxed) }

    public func recordInstall(matchType: String) {
        lock.lock()
        installs[matchType, default: 0] += 1
        lock.unlock()
    }

    /// The exposition text; `gauges` are sampled by the caller (connections, queue depth…).
    func render(counters: [(name: String, help: String, value: Int)] = [], gauges: [(name: String, help: String, value: Double)]) -> String {
        lock.lock()
        let requests = self.requests, counts = durationCounts, sum = durationSum, installs = self.installs
        lock.unlock()
        var out = "# HELP attributiond_http_requests_total Requests answered, by route pattern and status.\n"
        out += "# TYPE attributiond_http_requests_total counter\n"
        for route in requests.keys.sorted() {
            for status in requests[route]!.keys.sorted() {
                out += "attributiond_http_requests_total{route=\"\(Self.escape(route))\",status=\"\(status)\"} \(requests[route]![status]!)\n"
            }
        }
        out += "# HELP attributiond_http_request_duration_seconds Time from a complete request to its response.\n"
        out += "# TYPE attributiond_http_request_duration_seconds histogram\n"
        var cumulative = 0
        for (index, bound) in Self.durationBuckets.enumerated() {
            cumulative += counts[index]
            out += "attributiond_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        cumulative += counts[Self.durationBuckets.count]
        out += "attributiond_http_request_duration_seconds_bucket{le=\"+Inf\"} \(cumulative)\n"
        out += "attributiond_http_request_duration_seconds_sum \(sum)\nattributiond_http_request_duration_seconds_count \(cumulative)\n"
        out += "# HELP attributiond_clicks_recorded_total Clicks recorded (link taps, LinkForty resolves, Linkrunner app opens).\n# TYPE attributiond_clicks_recorded_total counter\n"
        out += "attributiond_clicks_recorded_total \(clicks.load(ordering: .relaxed))\n"
        out += "# HELP attributiond_installs_total New installs by match type.\n# TYPE attributiond_installs_total counter\n"
        for type in ["deterministic", "probabilistic", "none"] {
            out += "attributiond_installs_total{match_type=\"\(type)\"} \(installs[type] ?? 0)\n"
        }
        out += "# HELP attributiond_events_collapsed_total LinkForty events identical to one already stored (same install, name, data and second), answered with its id and not stored again.\n"
        out += "# TYPE attributiond_events_collapsed_total counter\nattributiond_events_collapsed_total \(collapsedEvents.load(ordering: .relaxed))\n"
        for counter in counters {
            out += "# HELP \(counter.name) \(counter.help)\n# TYPE \(counter.name) counter\n\(counter.name) \(counter.value)\n"
        }
        for gauge in gauges {
            out += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) gauge\n\(gauge.name) \(gauge.value)\n"
        }
        return out
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
