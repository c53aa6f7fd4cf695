public import Attribution
public import StoreContracts

/// Clicks: queued as background writes (a redirect never waits for its row), and the
/// interstitial's beacon that adds browser signals to one.
public struct ClickService: Sendable {
    let store: any StoreBackend
    let clocks: ProjectClocks

    public func record(_ click: Click, countTowardLimit: Bool = false) {
        store.clicks.record(countTowardLimit: countTowardLimit, click, completion: nil)
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
