import Foundation
public import Synchronization

/// What the delivery worker has done since start, for /metrics: attempts by job kind and by
/// outcome class (`2xx`, `3xx`, `4xx`, `5xx`, `error`), and how long attempts took.
public final class DeliveryCounters: @unchecked Sendable {
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15]

    public struct Snapshot: Sendable {
        /// kind → outcome class → attempts.
        public var attempts: [String: [String: Int]]
        /// How long attempts took, in seconds.
        public var latency: Histogram
        public var inFlight: Int
        /// platform → reason → deliveries not sent (a consent refusal, no device id, not mapped…).
        public var adPlatformRefusals: [String: [String: Int]] = [:]
    }

    public let inFlight = Atomic<Int>(0)
    // `attempts` and `latency` are only touched under `lock`.
    private let lock = NSLock()
    private var attempts: [String: [String: Int]] = [:]
    private var latency = Histogram(bounds: DeliveryCounters.latencyBuckets)
    private var adPlatformRefusals: [String: [String: Int]] = [:]

    public init() {}

    /// `statusCode` nil: no answer (connection refused, reset, timed out, address refused).
    func recordAttempt(kind: String, statusCode: Int?, seconds: Double) {
        let outcome = statusCode.map { "\($0 / 100)xx" } ?? "error"
        lock.lock()
        attempts[kind, default: [:]][outcome, default: 0] += 1
        latency.record(seconds)
        lock.unlock()
    }

    func recordRefusal(platform: String, reason: String) {
        lock.lock()
        adPlatformRefusals[platform, default: [:]][reason, default: 0] += 1
        lock.unlock()
    }

    public func snapshot() -> Snapshot {
        lock.lock()
        defer { lock.unlock() }
        return Snapshot(
            attempts: attempts, latency: latency, inFlight: inFlight.load(ordering: .relaxed), adPlatformRefusals: adPlatformRefusals)
    }
}
