public import Attribution
public import StoreContracts

/// Every aggregate's store that is written once over a `SessionSource`: each backend composes
/// these and adds what is its own (SQLite's click path and writer, PostgreSQL's click store, pool
/// and rollup fold). Built here, so the generic stores stay inside this module.
@_spi(StoreInternals) public struct SharedStores<Source: SessionSource>: Sendable {
    public let projects: any ProjectStore
    public let signingKeys: any SigningKeyStore
    public let templates: any TemplateStore
    public let domains: any DomainStore
    public let applePostbacks: any ApplePostbackStore
    public let certificates: any CertificateStore
    public let links: any LinkStore
    public let installs: any InstallStore
    public let events: any EventStore
    public let users: any UserStore
    public let stats: any StatsStore
    public let erasure: any ErasureStore
    public let outbox: any OutboxStore
    public let postbacks: any PostbackStore
    public let appleAds: any AppleAdsStore
    public let appleAdsNames: any AppleAdsNameStore
    public let dashboard: any DashboardStore
    public let browse: any BrowseStore
    public let clickRetention: ClickRetention

    /// - Parameters:
    ///   - reads: where the stats and the dashboard's lists read (a replica, or `source`).
    ///   - clock: stamps API keys and projects created through the store.
    ///   - beforeRollupRead: brings the rollups up to date before they are read (PostgreSQL adds
    ///     up its pending deltas; SQLite's are current at every commit).
    public init(
        source: Source, reads: Source, clock: any Clock, beforeRollupRead: @escaping @Sendable () throws -> Void = {}
    ) {
        projects = Projects(source: source, clock: clock)
        signingKeys = SigningKeys(source: source)
        templates = Templates(source: source)
        domains = Domains(source: source)
        applePostbacks = ApplePostbacks(source: source)
        certificates = CertificateRecords(source: source)
        links = Links(source: source)
        installs = Installs(source: source)
        events = Events(source: source)
        users = Users(source: source)
        stats = Stats(source: reads, beforeRollupRead: beforeRollupRead)
        erasure = Erasure(source: source)
        outbox = Outbox(source: source)
        postbacks = Postbacks(source: source)
        appleAds = AppleAdsClaims(source: source)
        appleAdsNames = AppleAdsNameRecords(source: source)
        dashboard = DashboardRecords(source: source)
        browse = Browse(source: reads, beforeRollupRead: beforeRollupRead)
        clickRetention = ClickRetention(pruner: ClickPruner(source: source))
    }
}
