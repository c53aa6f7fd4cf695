public import Attribution

/// Clicks: queued writes (a redirect waits for its row only when the writer is behind) and beacon updates.
public protocol ClickStore: Sendable {
    /// Queues the click. Without a `completion` nobody waits, and the row may wait to share a
    /// commit; with one it is committed as soon as the writer can.
    func record(countTowardLimit: Bool, _ click: Click, completion: (@Sendable (Result<Void, any Error>) -> Void)?)
    /// Adds the interstitial's browser signals to a click younger than `maximumAgeSeconds`;
    /// false when there is no such click.
    func recordBeacon(
        clickID: String, signals: BrowserSignals, maximumAgeSeconds: Int64,
        now: @escaping @Sendable (_ projectID: String) -> Timestamp, delivery: WriteDelivery?,
        completion: @escaping @Sendable (Result<Bool, any Error>) -> Void)
    func find(clickID: String) throws -> Click?
    /// The newest Private Relay tap of each project and region key stored (`NetworkKey.relay`):
    /// what a node that starts knows of the taps recorded before it.
    func latestRelayTaps() throws -> [(projectID: String, regionKey: String, at: Int64)]
}

extension ClickStore {
    public func record(_ click: Click) { record(countTowardLimit: false, click, completion: nil) }
}
