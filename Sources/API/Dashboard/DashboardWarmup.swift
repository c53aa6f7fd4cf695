import App
import Attribution
public import Dispatch
public import Lifecycle
import StoreContracts
import Synchronization

/// Keeps the dashboard's day ranges summed ahead of their views: the 7, 30 and 90 days of every
/// project (the first 300) from start-up, and any of them viewed since (the projects page views
/// every project's 7 days), are summed again in the background every few minutes, within 30 s of
/// a new day (a new period), and at once when a project's settings change (a new time zone: new
/// periods). A viewer then waits for a sum (0.2–0.5 s for 90 days at 10 million clicks) only for
/// a custom range. Started by `serve` when the dashboard is on.
public final class DashboardWarmup: Service, @unchecked Sendable {
    static let watched = ["7d", "30d", "90d"]

    public let serviceName = "dashboard warm-up"
    private let services: Services
    private let interval: DispatchTimeInterval
    private let timer: any DispatchSourceTimer
    private let queue = DispatchQueue(label: "attributiond.dashboard-warmup", qos: .utility)

    /// - Parameter interval: how often the watched periods are looked at (a new day's period is
    ///   summed at the next look; a past older than 4 minutes is summed again).
    public init(services: Services, every interval: DispatchTimeInterval = .seconds(30)) {
        self.services = services
        self.interval = interval
        timer = DispatchSource.makeTimerSource(queue: queue)
        // Resumed now and scheduled by `start`: a source released while suspended traps.
        timer.schedule(deadline: .distantFuture)
        timer.resume()
    }

    /// Nothing to do when the dashboard is off.
    public func start() {
        guard services.dashboard.enabled else { return }
        let app = services.app
        let warm: @Sendable () -> Void = { app.reports.warmWatchedPeriods { try app.projects.cachedProject(id: $0) } }
        timer.setEventHandler(handler: warm)
        // A project's time zone or currency makes new periods: summed at once, not at the next tick.
        let pending = Mutex(false)
        let queue = self.queue
        app.store.observeCommits(changing: [.projects]) { _ in
            guard
                pending.withLock({ scheduled in
                    defer { scheduled = true }
                    return !scheduled
                })
            else { return }
            queue.async {
                pending.withLock { $0 = false }
                warm()
            }
        }
        queue.async { [services] in
            // The first 300 projects: a deployment of thousands has the rest summed once viewed.
            for project in ((try? app.projects.list()) ?? []).prefix(300) {
                for range in Self.watched { Self.watch(range, projectID: project.id, services) }
            }
            warm()
        }
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(5))
    }

    public func stop(by deadline: DispatchTime) { timer.cancel() }

    /// Asks for `range` of the project to be kept summed, when it is one of the watched day ranges.
    static func watch(_ range: String, projectID: String, _ services: Services) {
        guard watched.contains(range) else { return }
        services.app.reports.watchDashboardPeriod(range, projectID: projectID) { project, now in
            let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
            guard let resolved = try? DashboardRange.resolve([("range", range)], calendar: calendar, now: now) else { return nil }
            return (resolved.since, resolved.until)
        }
    }
}
