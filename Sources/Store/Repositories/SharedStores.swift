public import Attribution
public import StoreContracts

/// Every aggregate's store that is written once over a `SessionSource`, gathered with the click
/// store a backend brings (SQLite's click path, PostgreSQL's multi-row click inserts). Built here,
/// so the generic stores stay inside this module (and are specialised for SQLite's `Database`).
@_spi(StoreInternals) public enum SharedStores {
    /// - Parameters:
    ///   - reads: where the stats and the dashboard's lists read (a replica, or `source`).
    ///   - clock: stamps API keys and projects created through the store.
    ///   - beforeRollupRead: brings the rollups up to date before they are read (PostgreSQL adds
    ///     up its pending deltas; SQLite's are current at every commit).
    public static func over<Source: SessionSource>(
        _ source: Source, reads: Source, clock: any Clock, clicks: any ClickStore,
        beforeRollupRead: @escaping @Sendable () throws -> Void = {}
    ) -> AggregateStores {
        AggregateStores(
            projects: Projects(source: source, clock: clock), signingKeys: SigningKeys(source: source),
            templates: Templates(source: source), links: Links(source: source), domains: Domains(source: source),
            applePostbacks: ApplePostbacks(source: source), certificates: CertificateRecords(source: source), clicks: clicks,
            installs: Installs(source: source), events: Events(source: source), users: Users(source: source),
            stats: Stats(source: reads, beforeRollupRead: beforeRollupRead), erasure: Erasure(source: source),
            outbox: Outbox(source: source), postbacks: Postbacks(source: source), appleAds: AppleAdsClaims(source: source),
            appleAdsNames: AppleAdsNameRecords(source: source), dashboard: DashboardRecords(source: source),
            browse: Browse(source: reads, beforeRollupRead: beforeRollupRead),
            clickRetention: ClickRetention(pruner: ClickPruner(source: source)),
            rollups: Rollups(source: source, beforeRollupRead: beforeRollupRead), adPlatforms: AdPlatforms(source: source),
            costs: Costs(source: source),
            exchangeRates: ExchangeRateRecords(source: source), revenue: Revenue(source: source),
            costSources: CostSources(source: source), exports: Exports(source: source))
    }
}
