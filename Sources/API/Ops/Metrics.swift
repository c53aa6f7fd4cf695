import App
import Attribution
import Foundation
import Synchronization

/// Counters and histograms for `GET /metrics` (Prometheus text format 0.0.4). Label sets are
/// bounded: routes are patterns (`/:code`), never raw paths.
public final class Metrics: @unchecked Sendable {
    static let durationBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    // Everything below is guarded by `lock`.
    private let lock = NSLock()
    private var requests: [String: [Int: Int]] = [:]  // route → status → count
    private var durations = Histogram(bounds: Metrics.durationBuckets)
    private var installs: [String: Int] = [:]  // match type → count
    private var applePostbacks: [String: [String: Int]] = [:]  // framework → result → count
    private let clicks = Atomic<Int>(0)
    private let collapsedEvents = Atomic<Int>(0)

    public init() {}

    /// A LinkForty event identical to one stored (same install, name, data and second) was not
    /// stored again.
    public func recordCollapsedEvent() { collapsedEvents.add(1, ordering: .relaxed) }

    func recordRequest(route: String, status: Int, seconds: Double) {
        lock.lock()
        requests[route, default: [:]][status, default: 0] += 1
        durations.record(seconds)
        lock.unlock()
    }

    /// An Apple postback copy answered: `stored`, `duplicate`, or the refusal's code.
    func recordApplePostback(framework: ApplePostback.Framework, result: String) {
        lock.lock()
        applePostbacks[framework.rawValue, default: [:]][result, default: 0] += 1
        lock.unlock()
    }

    public func recordClick() { clicks.add(1, ordering: .relaxed) }

    public func recordInstall(matchType: String) {
        lock.lock()
        installs[matchType, default: 0] += 1
        lock.unlock()
    }

    /// The request, click, install and event families.
    func render(to out: inout PrometheusText) {
        lock.lock()
        let requests = self.requests
        let durations = self.durations
        let installs = self.installs
        let applePostbacks = self.applePostbacks
        lock.unlock()
        out.counter(
            "attributiond_http_requests_total", "Requests answered, by route pattern and status.",
            requests.keys.sorted().flatMap { route in
                requests[route]!.keys.sorted().map { status in ([("route", route), ("status", "\(status)")], requests[route]![status]!) }
            })
        out.histogram("attributiond_http_request_duration_seconds", "Time from a complete request to its response.", durations)
        out.counter(
            "attributiond_clicks_recorded_total", "Clicks recorded (link taps, LinkForty resolves, Linkrunner app opens).",
            clicks.load(ordering: .relaxed))
        out.counter(
            "attributiond_installs_total", "New installs by match type.",
            ["deterministic", "probabilistic", "none"].map { ([("match_type", $0)], installs[$0] ?? 0) })
        out.counter(
            "attributiond_events_collapsed_total",
            "LinkForty events identical to one already stored (same install, name, data and second), answered with its id and not stored again.",
            collapsedEvents.load(ordering: .relaxed))
        out.counter(
            "attributiond_skan_postbacks_total", "Apple postback copies (SKAdNetwork, AdAttributionKit) by framework and result.",
            ApplePostback.Framework.allCases.flatMap { framework in
                let results = applePostbacks[framework.rawValue] ?? [:]
                return Set(["stored", "duplicate", "bad_signature", "malformed", "unknown_app"]).union(results.keys).sorted().map {
                    ([("framework", framework.rawValue), ("result", $0)], results[$0] ?? 0)
                }
            })
    }
}
