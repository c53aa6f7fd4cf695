import Foundation
public import StoreContracts
import Synchronization

/// The embedded store: one SQLite file in WAL mode, one group-committing writer, a pool of readers.
public final class Database: Sendable {
    public enum Synchronous: String, Sendable, CaseIterable {
        /// WAL + NORMAL: a process crash loses nothing committed; a power loss may lose the last commits.
        case normal = "NORMAL"
        /// Every commit is fsynced: durable across power loss, slower.
        case full = "FULL"
    }

    public let path: String
    public let writer: DatabaseWriter
    public let readers: ReaderPool

    /// Opens (creating the file and its folder if needed) and migrates the database.
    public init(
        path: String, synchronous: Synchronous = .normal, memory: SQLiteMemory = SQLiteMemory(), readerCount: Int = 4,
        maxBatch: Int = 256, walRestartFrames: Int = 16_384, migrations: [Migration] = Migration.bundled
    ) throws {
        self.path = path
        try Self.createFolder(for: path)
        let isNew = !FileManager.default.fileExists(atPath: path)

        let writerConnection = try SQLiteConnection(path: path, mode: .readWrite)
        // It holds key hashes, webhook secrets and TLS keys: readable by its owner only (SQLite
        // gives the WAL and index files the database file's permissions).
        if isNew { _ = chmod(path, 0o600) }
        try writerConnection.enableWAL()
        try writerConnection.execute("PRAGMA synchronous = \(synchronous.rawValue)")
        try writerConnection.execute("PRAGMA foreign_keys = ON")
        try memory.apply(to: writerConnection)
        // No automatic checkpoints on the writer (one copying megabytes would stall every write
        // behind it): a background connection copies without blocking writes (PASSIVE), and the
        // writer only restarts the WAL, when little is left to copy (DatabaseWriter).
        try writerConnection.execute("PRAGMA wal_autocheckpoint = 0")
        // After the WAL restarts, give back the disk space beyond 64 MiB.
        try writerConnection.execute("PRAGMA journal_size_limit = 67108864")
        try Migrator.migrate(writerConnection, migrations: migrations)
        try Self.probeWrite(writerConnection, path: path)
        let checkpointLock = CheckpointLock()
        writer = DatabaseWriter(
            connection: writerConnection, maxBatch: maxBatch, walRestartFrames: walRestartFrames,
            checkpointLock: checkpointLock)

        var readerConnections: [SQLiteConnection] = []
        for _ in 0..<max(1, readerCount) {
            let reader = try SQLiteConnection(path: path, mode: .readOnly)
            try memory.apply(to: reader)
            readerConnections.append(reader)
        }
        readers = ReaderPool(connections: readerConnections)
        checkpointer = try Checkpointer(path: path, lock: checkpointLock)
    }

    let checkpointer: Checkpointer

    /// Creates the folder a database file goes in, so a first start needs no set-up.
    public static func createFolder(for path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !folder.isEmpty { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
    }

    /// Told of every call that waits on the database (a read, a write waited for) and answers
    /// whether the calling thread must not block; the composition sets it to "is this an event
    /// loop?". Debug builds then stop at such a call, so a handler that blocks a loop fails the
    /// tests (`NonBlockingLoopTests`) instead of slowing production.
    private let mustNotBlock = Mutex<(@Sendable () -> Bool)?>(nil)

    public func forbidBlocking(when check: @escaping @Sendable () -> Bool) {
        mustNotBlock.withLock { $0 = check }
    }

    @inline(__always) private func checkMayBlock(_ what: StaticString) {
        #if DEBUG
            if let check = mustNotBlock.withLock({ $0 }), check() {
                BlockingCalls.report("\(what) on an event-loop thread")
            }
        #endif
    }

    /// Calls `observer` on the writer thread after each commit that changed one of `tables` (the
    /// names it changed), before anyone waiting for that commit is told. Caches of those tables
    /// are emptied there, whatever route or use case wrote. Changes made by another process (the
    /// command line on the same file) are not seen. Call once, at start-up.
    public func observeCommits(changing tables: [String], _ observer: @escaping @Sendable ([String]) -> Void) {
        writer.observeCommits(changing: tables, observer)
    }

    /// Followers of `change_log` (what other processes change), kept for the database's life.
    private let followers = Mutex<[ChangeLogFollower]>([])

    /// Calls `observer`, within a second, with what other processes (the command line, scripts)
    /// changed in the tables the server keeps in memory.
    public func observeOtherProcesses(_ observer: @escaping @Sendable ([TopicChange]) -> Void) {
        let follower = ChangeLogFollower(readers: readers, observer: observer)
        followers.withLock { $0.append(follower) }
    }

    /// Returns once every write queued before the call has committed.
    public func waitForQueuedWrites() throws {
        checkMayBlock("a write waited for")
        try writer.barrier { _ in }
    }

    /// The database answers a trivial read, and its last write did not fail for a full disk (readiness: a
    /// server that can only read is not ready).
    public func ping() throws {
        if writer.storageFull { throw StoreError.storageFull("the disk of \(path) is full; writes fail until space is freed") }
        _ = try read { try $0.queryOne("SELECT 1") { $0.int(0) } }
    }

    /// A file or file system that cannot be written opens read-only without a word from SQLite,
    /// and a database already migrated writes nothing at start: one write, rolled back, finds out
    /// before the server says it is ready.
    static func probeWrite(_ connection: SQLiteConnection, path: String) throws {
        do {
            try connection.execute("BEGIN IMMEDIATE")
            try connection.execute("CREATE TABLE attributiond_write_probe (x INTEGER)")
            try connection.execute("ROLLBACK")
        } catch {
            try? connection.execute("ROLLBACK")
            throw SQLiteError(code: error.code, message: "cannot write the database \(path): \(error)")
        }
    }

    @_spi(StoreInternals) public func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        checkMayBlock("a database read")
        return try readers.read(body)
    }

    /// Queues a write for group commit; `completion` runs once it is committed.
    @_spi(StoreInternals) public func write<T>(
        priority: DatabaseWriter.Priority = .acknowledged, delivery: WriteDelivery? = nil,
        _ work: @escaping (SQLiteConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        writer.write(priority: priority, delivery: delivery, work, completion: completion)
    }

    @discardableResult
    @_spi(StoreInternals) public func writeAndWait<T>(_ work: @escaping (SQLiteConnection) throws -> T) throws -> T {
        checkMayBlock("a write waited for")
        return try writer.writeAndWait(work)
    }

    /// Waits for every queued write to commit, then folds the WAL back into the database file
    /// (on shutdown, so the file is complete on its own).
    public func flushAndCheckpoint() throws {
        checkpointer.stop()
        try writer.barrier { connection in try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}

/// Blocking store calls made where they must not be (debug builds): counted and described, for
/// the test that asserts there are none. Trapping instead would take the whole test run down with
/// one signal and no name.
public enum BlockingCalls {
    private static let seen = Mutex<[String]>([])

    package static func report(_ description: String) {
        let stack = Thread.callStackSymbols.prefix(12).joined(separator: "\n")
        seen.withLock { if $0.count < 50 { $0.append("\(description)\n\(stack)") } }
    }

    /// What was reported since the last call, emptied.
    public static func drain() -> [String] {
        seen.withLock {
            let all = $0
            $0 = []
            return all
        }
    }
}
