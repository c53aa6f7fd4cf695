/// One database behind the application: each aggregate's store, and what the composition and
/// operations need of the database as a whole. SQLite implements it (`SQLiteStore`); a second
/// backend fills the same seam.
public protocol StoreBackend: Sendable {
    var projects: any ProjectStore { get }
    var signingKeys: any SigningKeyStore { get }
    var templates: any TemplateStore { get }
    var links: any LinkStore { get }
    var domains: any DomainStore { get }
    var applePostbacks: any ApplePostbackStore { get }
    var certificates: any CertificateStore { get }
    var clicks: any ClickStore { get }
    var installs: any InstallStore { get }
    var events: any EventStore { get }
    var users: any UserStore { get }
    var stats: any StatsStore { get }
    var erasure: any ErasureStore { get }
    var outbox: any OutboxStore { get }
    var postbacks: any PostbackStore { get }
    var appleAds: any AppleAdsStore { get }
    var appleAdsNames: any AppleAdsNameStore { get }
    var dashboard: any DashboardStore { get }
    var browse: any BrowseStore { get }

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
    /// Deletes clicks past every attribution window (`RetentionJob`).
    var clickRetention: ClickRetention { get }
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
