public import Attribution
public import StoreContracts

/// Clicks: queued as background writes (a redirect does not wait for its row while the writer
/// keeps up), and the interstitial's beacon that adds browser signals to one.
public struct ClickService: Sendable {
    let store: any StoreBackend
    let clocks: ProjectClocks
    let backlogLimit: Int
    let relayTaps: RecentRelayTaps

    /// Queued writes from which a click's answer waits for its row (`isWriterBehind`). Clicks
    /// arriving faster than they commit (~42,000 answered and ~35,500 committed a second on two
    /// cores) otherwise queued rows without bound, ~10 MB for each second of overload. Two
    /// batches: a click that waits, waits for at most this many rows ahead of it (2,048 made that
    /// a p99 of 45 ms under overload), and the writer always has a full batch to take.
    public static let defaultBacklogLimit = 512

    init(store: any StoreBackend, clocks: ProjectClocks, relayTaps: RecentRelayTaps, backlogLimit: Int = Self.defaultBacklogLimit) {
        self.relayTaps = relayTaps
        self.store = store
        self.clocks = clocks
        self.backlogLimit = backlogLimit
    }

    /// True when the writer is `backlogLimit` writes behind: a click's answer should then wait
    /// for its row (`record(_:countTowardLimit:committed:)`), so the writer sets the pace.
    public var isWriterBehind: Bool { store.writeStatistics.queueDepth >= backlogLimit }

    /// Queues the click. With `committed`, that is called once the row is committed (or failed),
    /// and the row is committed without waiting to share a batch.
    public func record(
        _ click: Click, countTowardLimit: Bool = false, committed: (@Sendable (Result<Void, any Error>) -> Void)? = nil
    ) {
        relayTaps.noted(click)
        store.clicks.record(countTowardLimit: countTowardLimit, click, completion: committed)
    }

    /// Whether `clickID` is a click this server recorded for `linkID` within the last
    /// `maximumAgeSeconds` (by the project's clock): what an in-app escape's `_esc` must name
    /// before its tap is taken as that click's continuation. Any id was taken before, and skipped
    /// recording the tap and rode into the Play referrer. A read: off the event loops only.
    public func isRecent(clickID: String, ofLink linkID: String, projectID: String, maximumAgeSeconds: Int64) throws -> Bool {
        // The webview's click may still be queued (Chrome follows an intent at once): its row first.
        var found = try store.clicks.find(clickID: clickID)
        if found == nil {
            try store.waitForQueuedWrites()
            found = try store.clicks.find(clickID: clickID)
        }
        guard let click = found, click.linkID == linkID, click.projectID == projectID else { return false }
        let age = clocks.now(projectID: projectID).milliseconds - click.createdAt.milliseconds
        return age >= -1_000 && age <= maximumAgeSeconds * 1000
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
