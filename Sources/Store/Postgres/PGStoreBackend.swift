public import Attribution
import Foundation

/// A node on PostgreSQL: every aggregate's store on one pool, queued writes on the node's
/// `PGWriter`, caches told of changes made through this node (before its callers hear of the
/// commit) and through any other (`PGChangeListener`, within one round trip of their COMMIT).
public final class PGStoreBackend: StoreBackend {
    public let pool: PGPool
    public let writer: PGWriter
    private let listener: PGChangeListener
    public let projects: any ProjectStore
    public let signingKeys: any SigningKeyStore
    public let templates: any TemplateStore
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

    /// Connects (the pool lazily, the listener at once: a database that cannot be reached fails
    /// here, at start-up) and applies pending migrations under the advisory lock.
    /// - Parameter readURL: a replica for the stats and the dashboard's reads, when given.
    public init(url: String, readURL: String? = nil, poolSize: Int = 16, clock: any Clock = SystemClock()) throws {
        try PGMigrator.migrate(PGConnection(url: url))
        let pool = PGPool(url: url, size: poolSize), writer = PGWriter(pool: pool)
        (self.pool, self.writer) = (pool, writer)
        listener = try PGChangeListener(url: url)
        let source = PGSource(pool: pool, writer: writer)
        let reads = readURL.map { PGSource(pool: PGPool(url: $0, size: max(2, poolSize / 2)), writer: writer) } ?? source
        projects = PGProjectStore(pool: pool, clock: clock)
        signingKeys = SigningKeys(source: source)
        templates = Templates(source: source)
        links = PGLinkStore(pool: pool)
        clicks = PGClickStore(pool: pool, writer: writer)
        installs = Installs(source: source)
        events = Events(source: source)
        users = Users(source: source)
        stats = Stats(source: reads)
        erasure = Erasure(source: source)
        outbox = Outbox(source: source)
        postbacks = Postbacks(source: source)
        appleAds = AppleAdsClaims(source: source)
        appleAdsNames = AppleAdsNameRecords(source: source)
        dashboard = DashboardRecords(source: source)
        browse = Browse(source: reads)
        clickRetention = ClickRetention(pruner: ClickPruner(source: source))
    }

    public var sharedWithOtherNodes: Bool { true }

    public func ping() throws { _ = try pool.read { try $0.query("SELECT 1") } }

    public func observeCommits(changing tables: [String], _ observer: @escaping @Sendable ([String]) -> Void) {
        listener.observe(changing: tables, observer)
        let watched = Set(tables)
        pool.observeCommits { changed in
            let heard = changed.filter(watched.contains)
            if !heard.isEmpty { observer(heard) }
        }
    }

    public func forbidBlocking(when check: @escaping @Sendable () -> Bool) { pool.forbidBlocking(when: check) }

    public func waitForQueuedWrites() throws { try writer.writeAndWait { _ in } }

    public var writeStatistics: WriteStatistics { writer.statistics }

    public func close() throws {
        try waitForQueuedWrites()
        listener.stop()
    }
}
