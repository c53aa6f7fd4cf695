public import Attribution
import Foundation
public import PostgresClient
import SQLValues
@_spi(StoreInternals) import Store
public import StoreContracts

/// A node on PostgreSQL: every aggregate's store on one pool, queued writes on the node's
/// `PGWriter`, caches told of changes made through this node (before its callers hear of the
/// commit) and through any other (`PGChangeListener`, within one round trip of their COMMIT).
public final class PGStoreBackend: StoreBackend {
    public let pool: PGPool
    public let writer: PGWriter
    private let listener: PGChangeListener
    public let stores: AggregateStores

    /// Connects (the pool lazily, the listener at once: a database that cannot be reached fails
    /// here, at start-up) and applies pending migrations under the advisory lock.
    /// - Parameters:
    ///   - readURL: a replica for the stats and the dashboard's reads, when given.
    ///   - readers: the pool's connections for reads; `writeLanes` more commit (`PGWriter`).
    ///   - writeLanes: transactions committing side by side. Four did best with the database on
    ///     the node's two cores (more lanes, smaller batches and more processes taking turns:
    ///     all-new init 2,403–2,826 req/s with eight, 3,490–3,824 with four); a database on another
    ///     host, where a lane waits on the network, wants more (`database_write_lanes`).
    public init(url: String, readURL: String? = nil, readers: Int = 8, writeLanes: Int = 4, clock: any Clock = SystemClock()) throws {
        try PGMigrator.migrate(PGConnection(url: url))
        let lanes = max(1, writeLanes)
        let pool = PGPool(url: url, size: max(1, readers) + lanes, errors: .store)
        let writer = PGWriter(pool: pool, lanes: lanes)
        (self.pool, self.writer) = (pool, writer)
        listener = try PGChangeListener(url: url)
        let source = PGSource(pool: pool, writer: writer)
        let reads = readURL.map { PGSource(pool: PGPool(url: $0, size: max(2, readers), errors: .store), writer: writer) } ?? source
        // Reads see every write committed before them: the rollups' pending deltas are added
        // up first, on the primary (postgres/0003).
        let fold: @Sendable () throws -> Void = { try pool.foldRollups() }
        stores = SharedStores.over(
            source, reads: reads, clock: clock, clicks: PGClickStore(pool: pool, writer: writer), beforeRollupRead: fold)
        // Deltas are added up every second, by whichever node gets there first, so that a fold
        // before a read has little to do and the delta tables stay small; young tables that grew
        // are analyzed, so that their statements' plans fit them (PGTableStatistics.swift).
        folding = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "attributiond.rollup-fold", qos: .utility))
        folding.schedule(deadline: .now() + .seconds(1), repeating: .seconds(1), leeway: .milliseconds(200))
        folding.setEventHandler {
            try? pool.foldRollups(wait: false)
            try? pool.analyzeGrownTables()
        }
        folding.resume()
    }

    /// A dispatch source is safe to cancel from any thread.
    nonisolated(unsafe) private let folding: any DispatchSourceTimer

    public var sharedWithOtherNodes: Bool { true }

    public func ping() throws { _ = try pool.read { try $0.query("SELECT 1") } }

    public func observeCommits(changing topics: Set<ChangeTopic>, _ observer: @escaping @Sendable (Set<ChangeTopic>) -> Void) {
        listener.observe(changing: topics.map(\.rawValue)) { tables in observer(ChangeTopic.of(tables: tables)) }
        pool.observeCommits { changed in
            let heard = ChangeTopic.of(tables: changed).intersection(topics)
            if !heard.isEmpty { observer(heard) }
        }
    }

    public func forbidBlocking(when check: @escaping @Sendable () -> Bool) { pool.forbidBlocking(when: check, report: { BlockingCalls.report($0) }) }

    public func waitForQueuedWrites() throws { try writer.waitForQueuedWrites() }

    public var writeStatistics: WriteStatistics { writer.statistics }

    public func close() throws {
        folding.cancel()
        try waitForQueuedWrites()
        listener.stop()
        pool.closeIdleConnections()
    }
}

extension PGPool {
    /// Adds the rollups' pending deltas into them (postgres/0003). `wait` false: not when another
    /// fold is under way.
    public func foldRollups(wait: Bool = true) throws {
        try session { _ = try $0.query("SELECT rollup_fold(?)", [.boolean(wait)]) }
    }
}
