public import Attribution
import Dispatch
public import StoreContracts
import Synchronization

/// Clicks: queued as background writes (a redirect never waits for its row), and the
/// interstitial's beacon that adds browser signals to one.
public struct ClickService: Sendable {
    let store: any StoreBackend
    let clocks: ProjectClocks
    /// Queued writes from which a click waits for its commit instead of being answered at once.
    let backlogLimit: Int
    let beforeBlocking: @Sendable () throws -> Void

    /// Clicks arriving faster than they commit (10,000 a second more than the writer's rate on two
    /// cores) queued rows without bound: ~5 MB a second of memory, all of it lost with the process.
    /// Past this many queued writes (a few MB) a click waits for its row, so the writer's pace
    /// becomes the clicks' pace. Well above a batch (256), so a burst never waits.
    public static let defaultBacklogLimit = 8_192

    init(
        store: any StoreBackend, clocks: ProjectClocks, backlogLimit: Int = Self.defaultBacklogLimit,
        beforeBlocking: @escaping @Sendable () throws -> Void = {}
    ) {
        self.store = store
        self.clocks = clocks
        self.backlogLimit = backlogLimit
        self.beforeBlocking = beforeBlocking
    }

    /// Queues the click as a background write, or, when the writer is `backlogLimit` writes
    /// behind, waits until it is committed (asking `beforeBlocking` first: an event loop hands
    /// the request to the handler pool). Throws what the write threw when it waited.
    public func record(_ click: Click, countTowardLimit: Bool = false) throws {
        guard store.writeStatistics.queueDepth >= backlogLimit else {
            store.clicks.record(countTowardLimit: countTowardLimit, click, completion: nil)
            return
        }
        try beforeBlocking()
        let committed = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        store.clicks.record(countTowardLimit: countTowardLimit, click) { result in
            outcome.withLock { $0 = result }
            committed.signal()
        }
        committed.wait()
        try outcome.withLock { $0 }?.get()
    }

    /// Adds `signals` to a click younger than `maximumAgeSeconds` (by its project's clock);
    /// `completion` gets false when there is no such click.
    public func addBrowserSignals(
        _ signals: BrowserSignals, clickID: String, maximumAgeSeconds: Int64, delivery: WriteDelivery?,
        completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) {
        let clocks = self.clocks
        store.clicks.recordBeacon(
            clickID: clickID, signals: signals, maximumAgeSeconds: maximumAgeSeconds,
            now: { clocks.now(projectID: $0) }, delivery: delivery, completion: completion)
    }
}
