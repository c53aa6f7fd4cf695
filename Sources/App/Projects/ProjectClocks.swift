public import Attribution
public import StoreContracts
import Synchronization

/// The clock each project reads. A test-mode project has its own `TestClock`, which moves only
/// when the admin API moves it; every other project reads the server's clock. Every
/// time-dependent decision of a project (click, install and event times, beacon expiry,
/// attribution window, decay band, SKAN window, retention) takes "now" from here.
public final class ProjectClocks: Sendable {
    public enum MoveError: Error, Equatable {
        case notTestMode
        case backward(current: Timestamp)
    }

    public let server: any Clock
    private let projects: any ProjectStore
    private let testClocks: Mutex<[String: TestClock]>
    /// Set once any test clock exists: until then a project id needs no lookup (the click path).
    private let anyTestClock: Atomic<Bool>
    /// Serialises moves, so the saved time and the clock in memory agree.
    private let moving = Mutex(())

    public init(server: any Clock, projects: any ProjectStore) {
        self.server = server
        self.projects = projects
        let saved = (try? projects.testClocks()) ?? []
        testClocks = Mutex(Dictionary(saved.map { ($0.projectID, TestClock($0.now)) }, uniquingKeysWith: { first, _ in first }))
        anyTestClock = Atomic(!saved.isEmpty)
    }

    /// The clock of a project known by value (its `testMode` says which kind it is).
    public func clock(for project: Project) -> any Clock {
        guard project.testMode else { return server }
        if let clock = testClocks.withLock({ $0[project.id] }) { return clock }
        // A test-mode project created by another process since start-up: its saved time, once.
        let saved = (try? projects.testClocks().first { $0.projectID == project.id }?.now) ?? server.now()
        anyTestClock.store(true, ordering: .releasing)
        return testClocks.withLock { clocks in
            if let clock = clocks[project.id] { return clock }
            let clock = TestClock(saved)
            clocks[project.id] = clock
            return clock
        }
    }

    /// "Now" for a project known only by id (a beacon's click, the retention job).
    public func now(projectID: String) -> Timestamp {
        guard anyTestClock.load(ordering: .acquiring) else { return server.now() }
        return (testClocks.withLock { $0[projectID] } ?? server).now()
    }

    /// A new test-mode project's clock, starting at its creation time.
    public func register(_ project: Project) {
        guard project.testMode else { return }
        anyTestClock.store(true, ordering: .releasing)
        testClocks.withLock { clocks in clocks[project.id] = clocks[project.id] ?? TestClock(project.createdAt) }
    }

    /// The test clocks there are, by project id (for the retention job).
    public func testProjectTimes() -> [String: Timestamp] {
        testClocks.withLock { $0.mapValues { $0.now() } }
    }

    /// Moves a test-mode project's clock to the time `target` picks from its current time (under
    /// the lock, so two concurrent "advance by" requests both count); saved first; never backward.
    public func move(_ project: Project, to target: (Timestamp) throws -> Timestamp) throws -> Timestamp {
        guard project.testMode, let clock = clock(for: project) as? TestClock else { throw MoveError.notTestMode }
        return try moving.withLock { _ in
            let current = clock.now()
            let time = try target(current)
            guard time >= current else { throw MoveError.backward(current: current) }
            try projects.saveClock(projectID: project.id, now: time)
            clock.move(to: time)
            return time
        }
    }
}
