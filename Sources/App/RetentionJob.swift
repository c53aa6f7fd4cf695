public import Attribution
public import Dispatch
public import Lifecycle
public import StoreContracts

/// Runs `ClickRetention` periodically.
public final class RetentionJob: Service, @unchecked Sendable {
    public let serviceName = "click retention"
    private let timer: any DispatchSourceTimer
    private let queue = DispatchQueue(label: "attributiond.retention", qos: .utility)
    private let interval: DispatchTimeInterval

    /// - Parameter hours: clicks to keep in hours; nil: the automatic value. Never started for 0.
    /// - Parameter testProjectTimes: "now" of each test-mode project, by id.
    public init(
        retention: ClickRetention, hours: Int?, clock: any Clock,
        testProjectTimes: @escaping @Sendable () -> [String: Timestamp] = { [:] },
        every interval: DispatchTimeInterval = .seconds(600), log: @escaping @Sendable (Int, Timestamp) -> Void
    ) {
        self.interval = interval
        timer = DispatchSource.makeTimerSource(queue: queue)
        // Resumed now and scheduled by `start`: a source released while suspended traps.
        timer.schedule(deadline: .distantFuture)
        timer.setEventHandler {
            guard let keep = try? hours ?? retention.automaticHours() else { return }
            let cutoff = clock.now().adding(seconds: -Int64(keep) * 3600)
            let testCutoffs = testProjectTimes().mapValues { $0.adding(seconds: -Int64(keep) * 3600) }
            if let deleted = try? retention.deleteClicks(before: cutoff, testProjectCutoffs: testCutoffs), deleted > 0 { log(deleted, cutoff) }
        }
        timer.resume()
    }

    /// The first pass 30 s from now, then one every interval.
    public func start() { timer.schedule(deadline: .now() + .seconds(30), repeating: interval, leeway: .seconds(5)) }

    /// Cancels the timer; a pass under way finishes on its own queue.
    public func stop(by deadline: DispatchTime) { timer.cancel() }
}
