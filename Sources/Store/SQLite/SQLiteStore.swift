public import Attribution
public import StoreContracts

/// The embedded backend: every aggregate's store on one SQLite `Database`.
public final class SQLiteStore: StoreBackend {
    public let database: Database
    public let stores: AggregateStores

    /// - Parameter clock: stamps API keys and projects created through the store.
    public init(database: Database, clock: any Clock = SystemClock()) {
        self.database = database
        stores = SharedStores.over(database, reads: database, clock: clock, clicks: ClickRepository(database: database))
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
