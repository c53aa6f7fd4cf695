/// One database behind the application: each aggregate's store, and what the composition and
/// operations need of the database as a whole. SQLite implements it (`SQLiteStore`); a second
/// backend fills the same seam.
public protocol StoreBackend: Sendable {
    /// Every aggregate's store (read through the properties below: `store.projects`…).
    var stores: AggregateStores { get }

    /// Throws unless the database answers a trivial read (readiness probes).
    func ping() throws
    /// Calls `observer` after each commit that changed one of `topics` (the ones it changed),
    /// before anyone waiting for that commit is told: caches of those topics are emptied there.
    func observeCommits(changing topics: Set<ChangeTopic>, _ observer: @escaping @Sendable (Set<ChangeTopic>) -> Void)
    /// Calls `observer`, within a second, with what other processes changed in the tables kept in
    /// memory. PostgreSQL's commits of other processes already reach `observeCommits`.
    func observeOtherProcesses(_ observer: @escaping @Sendable ([TopicChange]) -> Void)
    /// Told of every call that waits on the database; when `check` answers true (an event-loop
    /// thread), debug builds record the call (`BlockingCalls`).
    func forbidBlocking(when check: @escaping @Sendable () -> Bool)
    /// Returns once every write queued before the call has committed.
    func waitForQueuedWrites() throws
    /// The write path's counters, for /metrics.
    var writeStatistics: WriteStatistics { get }
    /// True when other nodes write to the same database: their changes to links reach this
    /// node's caches only through `observeCommits`.
    var sharedWithOtherNodes: Bool { get }
    /// Commits what is queued and lets go of the database (at shutdown).
    func close() throws
}

public struct WriteStatistics: Sendable {
    public var commits: Int
    public var committedWrites: Int
    public var queueDepth: Int
    public var lastCommitSeconds: Double
    public var lastBatchSize: Int
    /// Writes nobody waited for (clicks) that failed, so were not stored: the database was away.
    public var lostWrites: Int = 0

    public init(commits: Int, committedWrites: Int, queueDepth: Int, lastCommitSeconds: Double, lastBatchSize: Int, lostWrites: Int = 0) {
        self.commits = commits
        self.committedWrites = committedWrites
        self.queueDepth = queueDepth
        self.lastCommitSeconds = lastCommitSeconds
        self.lastBatchSize = lastBatchSize
        self.lostWrites = lostWrites
    }
}

extension StoreBackend {
    public func observeOtherProcesses(_ observer: @escaping @Sendable ([TopicChange]) -> Void) {}
}

/// Each aggregate's store of one backend, gathered once: a backend holds one of these, and the
/// application reads them through `StoreBackend`'s properties. A class: reading one store through
/// the backend copies one reference, not twenty existentials (the click path reads one a click).
public final class AggregateStores: Sendable {
    public let projects: any ProjectStore
    public let signingKeys: any SigningKeyStore
    public let templates: any TemplateStore
    public let links: any LinkStore
    public let domains: any DomainStore
    public let applePostbacks: any ApplePostbackStore
    public let certificates: any CertificateStore
    public let clicks: any ClickStore
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
    /// Deletes clicks past every attribution window (`RetentionJob`).
    public let clickRetention: ClickRetention
    public let rollups: any RollupStore
    public let adPlatforms: any AdPlatformStore
    public let costs: any CostStore
    public let exchangeRates: any ExchangeRateStore
    public let revenue: any RevenueStore
    public let costSources: any CostSourceStore
    public let exports: any ExportStore

    public init(
        projects: any ProjectStore, signingKeys: any SigningKeyStore, templates: any TemplateStore, links: any LinkStore, domains: any DomainStore,
        applePostbacks: any ApplePostbackStore, certificates: any CertificateStore, clicks: any ClickStore, installs: any InstallStore,
        events: any EventStore, users: any UserStore, stats: any StatsStore, erasure: any ErasureStore, outbox: any OutboxStore,
        postbacks: any PostbackStore, appleAds: any AppleAdsStore, appleAdsNames: any AppleAdsNameStore, dashboard: any DashboardStore,
        browse: any BrowseStore,
        clickRetention: ClickRetention, rollups: any RollupStore, adPlatforms: any AdPlatformStore, costs: any CostStore,
        exchangeRates: any ExchangeRateStore, revenue: any RevenueStore, costSources: any CostSourceStore,
        exports: any ExportStore
    ) {
        self.projects = projects
        self.signingKeys = signingKeys
        self.templates = templates
        self.links = links
        self.domains = domains
        self.applePostbacks = applePostbacks
        self.certificates = certificates
        self.clicks = clicks
        self.installs = installs
        self.events = events
        self.users = users
        self.stats = stats
        self.erasure = erasure
        self.outbox = outbox
        self.postbacks = postbacks
        self.appleAds = appleAds
        self.appleAdsNames = appleAdsNames
        self.dashboard = dashboard
        self.browse = browse
        self.clickRetention = clickRetention
        self.rollups = rollups
        self.adPlatforms = adPlatforms
        self.costs = costs
        self.exchangeRates = exchangeRates
        self.revenue = revenue
        self.costSources = costSources
        self.exports = exports
    }
}

extension StoreBackend {
    public var projects: any ProjectStore { stores.projects }
    public var signingKeys: any SigningKeyStore { stores.signingKeys }
    public var templates: any TemplateStore { stores.templates }
    public var links: any LinkStore { stores.links }
    public var domains: any DomainStore { stores.domains }
    public var applePostbacks: any ApplePostbackStore { stores.applePostbacks }
    public var certificates: any CertificateStore { stores.certificates }
    public var clicks: any ClickStore { stores.clicks }
    public var installs: any InstallStore { stores.installs }
    public var events: any EventStore { stores.events }
    public var users: any UserStore { stores.users }
    public var stats: any StatsStore { stores.stats }
    public var erasure: any ErasureStore { stores.erasure }
    public var outbox: any OutboxStore { stores.outbox }
    public var postbacks: any PostbackStore { stores.postbacks }
    public var appleAds: any AppleAdsStore { stores.appleAds }
    public var appleAdsNames: any AppleAdsNameStore { stores.appleAdsNames }
    public var dashboard: any DashboardStore { stores.dashboard }
    public var browse: any BrowseStore { stores.browse }
    public var clickRetention: ClickRetention { stores.clickRetention }
    public var rollups: any RollupStore { stores.rollups }
    public var adPlatforms: any AdPlatformStore { stores.adPlatforms }
    public var costs: any CostStore { stores.costs }
    public var exchangeRates: any ExchangeRateStore { stores.exchangeRates }
    public var revenue: any RevenueStore { stores.revenue }
    public var costSources: any CostSourceStore { stores.costSources }
    public var exports: any ExportStore { stores.exports }
}
