public import Dispatch
public import Lifecycle

/// Runs the cost pulls that are due (`CostPullService.pullDue`) every few minutes, and the daily
/// fetch of the ECB's reference rates.
public final class CostPullJob: Service, @unchecked Sendable {
    public let serviceName = "cost pulls"
    private let timer: any DispatchSourceTimer
    private let interval: DispatchTimeInterval

    public init(pulls: CostPullService, rates: ECBRateFetcher, every interval: DispatchTimeInterval = .seconds(300)) {
        self.interval = interval
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "attributiond.cost-pulls", qos: .utility))
        // Resumed now and scheduled by `start`: a source released while suspended traps.
        timer.schedule(deadline: .distantFuture)
        timer.setEventHandler {
            pulls.pullDue()
            rates.fetchIfDue()
        }
        timer.resume()
    }

    /// The first pass a minute from now, then one every interval.
    public func start() { timer.schedule(deadline: .now() + .seconds(60), repeating: interval, leeway: .seconds(10)) }

    public func stop(by deadline: DispatchTime) { timer.cancel() }
}
