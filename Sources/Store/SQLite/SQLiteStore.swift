public import Attribution
public import StoreContracts

/// The embedded backend: every aggregate's store on one SQLite `Database`.
public final class SQLiteStore: StoreBackend {
    public let database: Database
    public let projects: any ProjectStore
    public let signingKeys: any SigningKeyStore
    public let templates: any TemplateStore
    public let domains: any DomainStore
    public let applePostbacks: any ApplePostbackStore
    public let certificates: any CertificateStore
    public let links: any LinkStore
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
    public let clickRetention: ClickRetention

    /// - Parameter clock: stamps API keys and projects created through the store.
    public init(database: Database, clock: any Clock = SystemClock()) {
        self.database = database
        let shared = SharedStores(source: database, reads: database, clock: clock)
        projects = shared.projects
        signingKeys = shared.signingKeys
        templates = shared.templates
        domains = shared.domains
        applePostbacks = shared.applePostbacks
        certificates = shared.certificates
        links = shared.links
        clicks = ClickRepository(database: database)
        installs = shared.installs
        events = shared.events
        users = shared.users
        stats = shared.stats
        erasure = shared.erasure
        outbox = shared.outbox
        postbacks = shared.postbacks
        appleAds = shared.appleAds
        appleAdsNames = shared.appleAdsNames
        dashboard = shared.dashboard
        browse = shared.browse
        clickRetention = shared.clickRetention
    }

    public var sharedWithOtherNodes: Bool { false }

    /// Commits what is queued and folds the WAL into the file, so the file is complete on its own.
    public func close() throws { try database.flushAndCheckpoint() }

    public func ping() throws { try database.ping() }

    public func observeCommits(changing topics: Set<ChangeTopic>, _ observer: @escaping @Sendable (Set<ChangeTopic>) -> Void) {
        database.observeCommits(changing: topics.map(\.rawValue)) { tables in observer(ChangeTopic.of(tables: tables)) }
    }

    public func observeOtherProcesses(_ observer: @escaping @Sendable ([TopicChange]) -> Void) {
        database.observeOtherProcesses(observer)
    }

    public func forbidBlocking(when check: @escaping @Sendable () -> Bool) { database.forbidBlocking(when: check) }

    public func waitForQueuedWrites() throws { try database.waitForQueuedWrites() }

    public var writeStatistics: WriteStatistics {
        let writer = database.writer
        return WriteStatistics(
            commits: writer.commitCount, committedWrites: writer.committedWriteCount, queueDepth: writer.queueDepth,
            lastCommitSeconds: writer.lastCommitSeconds, lastBatchSize: writer.lastBatchSize,
            lostWrites: writer.lostWriteCount)
    }
}
