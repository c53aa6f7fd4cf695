import Dispatch
import Foundation
import Logging
public import StoreContracts
import Synchronization

/// The single writer connection, behind a serial queue, with group commit: writes submitted while
/// a transaction is being committed are gathered and committed together in the next one. Each
/// write runs inside its own SAVEPOINT, so one failing write is rolled back alone while the others
/// of its batch commit; each caller is told the outcome only after the COMMIT has returned, so an
/// acknowledged write is a committed write.
///
/// SQLite allows one writer at a time per database; funnelling all writes through one connection
/// avoids SQLITE_BUSY between our own writers entirely.
public final class DatabaseWriter: @unchecked Sendable {
    private let logger = Logger(label: "attributiond.sqlite-writer")
    // `connection` is only touched on `queue`; `pending` is guarded by its mutex.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "attributiond.store.writer", qos: .userInitiated)
    private let completionQueue = DispatchQueue(label: "attributiond.store.completions", qos: .userInitiated, attributes: .concurrent)
    private let maxBatch: Int

    private struct Pending {
        var items: [WriteItem] = []
        /// Items whose caller waits for the commit.
        var acknowledgedCount = 0
        var draining = false
        var gatherScheduled = false
    }

    /// Whether a caller waits for the commit. Background writes (clicks, answered before they
    /// are stored) may wait up to `gatherDelay` (10 ms) so that one commit covers many of them: with
    /// `synchronous=NORMAL` commits are fast, so without this each click would rewrite the same
    /// WAL pages.
    public enum Priority: Sendable { case acknowledged, background }

    private let gatherDelay: DispatchTimeInterval = .milliseconds(10)
    private let pending = Mutex(Pending())
    private let queuedCount = Atomic<Int>(0)
    private let lastCommitNanoseconds = Atomic<Int>(0)
    private let lastBatch = Atomic<Int>(0)
    private let commits = Atomic<Int>(0)
    private let committedWrites = Atomic<Int>(0)

    /// How long the last commit took, and how many writes it carried (for /metrics).
    public var lastCommitSeconds: Double { Double(lastCommitNanoseconds.load(ordering: .relaxed)) / 1e9 }
    public var lastBatchSize: Int { lastBatch.load(ordering: .relaxed) }
    /// Transactions committed, and the writes they carried: their ratio is the mean batch, how
    /// much group commit shares each commit's WAL pages.
    public var commitCount: Int { commits.load(ordering: .relaxed) }
    public var committedWriteCount: Int { committedWrites.load(ordering: .relaxed) }
    /// Writes nobody waited for that failed (`noteLostWrite`).
    public var lostWriteCount: Int { lostWrites.load(ordering: .relaxed) }
    private let lostWrites = Atomic<Int>(0)

    /// Whether the last write failed for a full disk; cleared by the next commit that stores one.
    public var storageFull: Bool { full.load(ordering: .relaxed) }
    private let full = Atomic<Bool>(false)

    private func noteFailure(_ error: any Error) {
        if (error as? SQLiteError)?.isStorageFull == true { full.store(true, ordering: .relaxed) }
    }

    /// Counts a write whose caller does not wait for it (a click) and that failed.
    func noteLostWrite() { lostWrites.add(1, ordering: .relaxed) }

    /// - Parameters:
    ///   - maxBatch: the most writes committed in one transaction (1 turns group commit off, the
    ///     baseline the benchmark compares against).
    ///   - walRestartFrames: WAL length (in pages written) past which the writer restarts it.
    ///   - checkpointLock: the one the database's checkpointer holds while it copies.
    init(connection: SQLiteConnection, maxBatch: Int = 256, walRestartFrames: Int = 16_384, checkpointLock: CheckpointLock) {
        self.connection = connection
        self.maxBatch = max(1, maxBatch)
        self.walRestartFrames = walRestartFrames
        self.checkpointLock = checkpointLock
        connection.trackWALFrames()
        connection.rollupCollector = rollups
        loadFoldedHour()
    }

    private func loadFoldedHour() {
        rollups.foldedThroughHour = (try? connection.queryOne("SELECT through_hour FROM rollup_folded") { $0.int(0) }) ?? .max
    }

    /// The rollup deltas of the batch being written (its writes hand them to their session).
    private let rollups = RollupCollector()

    private let walRestartFrames: Int
    private let checkpointLock: CheckpointLock
    /// When a RESTART that found a reader in its way may be tried again (writer queue only): at
    /// that time, or once the WAL holds `retryRestartAtFrames`, whichever comes first.
    private var nextRestartAttempt: UInt64 = 0
    private var retryRestartAtFrames = 0

    /// Told, on the writer thread right after a COMMIT and before its callers, which watched
    /// tables it changed (`observeCommits`).
    private let commitObservers = Mutex<[(tables: Set<String>, observer: @Sendable ([String]) -> Void)]>([])

    /// Calls `observer` after every commit that changed one of `tables`, before the writes' callers
    /// are told: derived state (caches) follows commits, whichever code path wrote.
    /// Each observer hears only of its own tables.
    func observeCommits(changing tables: [String], _ observer: @escaping @Sendable ([String]) -> Void) {
        queue.sync {
            let watched = commitObservers.withLock { observers in
                observers.append((Set(tables), observer))
                return observers.reduce(into: Set<String>()) { $0.formUnion($1.tables) }
            }
            connection.watchChanges(to: watched.sorted())
        }
    }

    /// Writes waiting for their transaction (for metrics and back-pressure).
    public var queueDepth: Int { queuedCount.load(ordering: .relaxed) }

    /// Queues `work`; `completion` runs after its transaction committed (or failed), off the caller.
    @_spi(StoreInternals) public func write<T>(
        priority: Priority = .acknowledged, delivery: WriteDelivery? = nil, _ work: @escaping (SQLiteConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let item = WriteItem(work: work, completion: completion, acknowledged: priority == .acknowledged, delivery: delivery)
        queuedCount.add(1, ordering: .relaxed)
        let next = pending.withLock { state -> NextStep in
            state.items.append(item)
            if item.acknowledged { state.acknowledgedCount += 1 }
            if state.draining { return .nothing }
            if item.acknowledged {
                state.draining = true
                return .drainNow
            }
            if state.gatherScheduled { return .nothing }
            state.gatherScheduled = true
            return .gatherThenDrain
        }
        switch next {
        case .nothing: break
        case .drainNow: queue.async { self.drain(force: false) }
        case .gatherThenDrain: scheduleGather()
        }
    }

    private enum NextStep { case nothing, drainNow, gatherThenDrain }

    private func scheduleGather() {
        queue.asyncAfter(deadline: .now() + gatherDelay) {
            let start = self.pending.withLock { state -> Bool in
                state.gatherScheduled = false
                if state.draining { return false }
                state.draining = true
                return true
            }
            if start { self.drain(force: true) }
        }
    }

    /// Queues `work` and blocks until it is committed (for the command line, tests and start-up).
    @discardableResult
    @_spi(StoreInternals) public func writeAndWait<T>(_ work: @escaping (SQLiteConnection) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<T, any Error>?
        write(delivery: .immediate, work) { result in
            outcome = result
            done.signal()
        }
        done.wait()
        return try outcome!.get()
    }

    /// Runs `body` on the writer's queue once every write queued before it has been committed.
    @_spi(StoreInternals) public func barrier<T>(_ body: @escaping (SQLiteConnection) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var outcome: Result<T, any Error>?
        nonisolated(unsafe) let body = body
        // A write item is the last in its batch's order, so all earlier ones are committed first;
        // its body runs outside any transaction because it is given a batch of its own.
        write(delivery: .immediate, { _ in () }) { [self] _ in
            queue.async {
                outcome = Result { try body(self.connection) }
                done.signal()
            }
        }
        done.wait()
        return try outcome!.get()
    }

    /// Commits batches until nothing is left, or only a few background writes are (those wait for
    /// the next gather unless `force`).
    private func drain(force: Bool) {
        var force = force
        while true {
            var gatherLater = false
            let batch = pending.withLock { state -> [WriteItem] in
                if !force, state.acknowledgedCount == 0, state.items.count < maxBatch / 4 {
                    state.draining = false
                    if !state.items.isEmpty, !state.gatherScheduled {
                        state.gatherScheduled = true
                        gatherLater = true
                    }
                    return []
                }
                let batch = Array(state.items.prefix(maxBatch))
                state.items.removeFirst(batch.count)
                state.acknowledgedCount -= batch.lazy.filter(\.acknowledged).count
                if batch.isEmpty { state.draining = false }
                return batch
            }
            if gatherLater { scheduleGather() }
            if batch.isEmpty { return }
            force = false
            commit(batch)
            queuedCount.subtract(batch.count, ordering: .relaxed)
            restartWALIfLarge()
        }
    }

    /// The WAL starts over from its beginning only once every frame in it has been copied back
    /// and no reader still needs it. The checkpointer copies in the background without blocking
    /// us, but under continuous writes it never catches up completely; so once the WAL has grown
    /// past the limit, the writer itself runs a RESTART between two batches. Little is left to
    /// copy by then, and no write waits on a checkpoint holding the lock from another connection
    /// (where SQLite's busy handler sleeps in steps of tens of milliseconds).
    private func restartWALIfLarge() {
        guard connection.walFrames > walRestartFrames else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        // After a failed attempt: again 100 ms later, or sooner once another limit's worth of
        // frames has been written (fast writers would otherwise grow the WAL far past the limit
        // in those 100 ms; at most one 20 ms wait per limit's worth of frames).
        guard now >= nextRestartAttempt || connection.walFrames >= retryRestartAtFrames else { return }
        // While our checkpointer copies, the RESTART could only wait for it: try after the next batch.
        let attempt = checkpointLock.mutex.withLockIfAvailable { _ -> Bool in
            // A reader in the middle of a long query must not hold every write up: give up quickly
            // and try again a little later.
            connection.setBusyTimeout(milliseconds: 20)
            defer { connection.setBusyTimeout(milliseconds: 5000) }
            return (try? connection.queryOne("PRAGMA wal_checkpoint(RESTART)") { $0.int(0) == 0 }) ?? false
        }
        guard let restarted = attempt else { return }
        nextRestartAttempt = restarted ? 0 : now + 100_000_000
        retryRestartAtFrames = restarted ? 0 : connection.walFrames + walRestartFrames
        if restarted { connection.resetWALFrames() }
    }

    private func commit(_ batch: [WriteItem]) {
        let started = DispatchTime.now().uptimeNanoseconds
        defer {
            lastCommitNanoseconds.store(Int(DispatchTime.now().uptimeNanoseconds - started), ordering: .relaxed)
            lastBatch.store(batch.count, ordering: .relaxed)
        }
        do {
            try connection.run("BEGIN IMMEDIATE")
        } catch {
            noteFailure(error)
            complete(batch) { _ in error }
            return
        }
        foldClosedHours()
        // A savepoint failing to open or close leaves that item failed; the others still commit.
        var savepointErrors: [Int: any Error] = [:]
        for (index, item) in batch.enumerated() {
            let mark = rollups.mark
            do {
                try connection.run("SAVEPOINT write_item")
                if !item.execute(connection) {
                    try connection.run("ROLLBACK TO write_item")
                    rollups.rollBack(to: mark)
                }
                try connection.run("RELEASE write_item")
            } catch {
                rollups.rollBack(to: mark)
                savepointErrors[index] = error
                noteFailure(error)
            }
        }
        if !rollups.isEmpty { addUpRollups() }
        do {
            try connection.run("COMMIT")
        } catch {
            noteFailure(error)
            rollups.clear()
            _ = try? connection.run("ROLLBACK")
            loadFoldedHour()  // a fold made inside the batch went with it
            complete(batch) { _ in error }
            return
        }
        commits.add(1, ordering: .relaxed)
        committedWrites.add(batch.count, ordering: .relaxed)
        if savepointErrors.count < batch.count, !savepointErrors.values.contains(where: { ($0 as? SQLiteError)?.isStorageFull == true }) {
            full.store(false, ordering: .relaxed)
        }
        // Before any caller hears of the commit: caches of what changed are emptied first, so no
        // request that starts after a response can find the old state in them.
        let changed = connection.takeChangedWatchedTables()
        if !changed.isEmpty {
            for (tables, observer) in commitObservers.withLock({ $0 }) {
                let own = changed.filter(tables.contains)
                if !own.isEmpty { observer(own) }
            }
        }
        let itemErrors = savepointErrors
        complete(batch) { itemErrors[$0] }
    }

    /// Adds the batch's rollup deltas into the rollups, all or nothing. Should that fail, the
    /// batch's writes still commit and the rollups miss them: refusing acknowledged writes over a
    /// count would be worse (and a disk too full for these pages fails the COMMIT as well).
    private func addUpRollups() {
        defer { rollups.clear() }
        do {
            try connection.run("SAVEPOINT rollup_flush")
            do {
                try rollups.flush(connection)
                try connection.run("RELEASE rollup_flush")
            } catch {
                _ = try? connection.run("ROLLBACK TO rollup_flush")
                _ = try? connection.run("RELEASE rollup_flush")
                throw error
            }
        } catch {
            logger.error("the dashboard's rollups missed a batch of writes (the writes committed)", metadata: ["error": "\(error)"])
        }
    }

    /// Folds the hours that are over into the day and project-hour rollups (migration 0022), at
    /// the start of the first batch after each hour ends: a few hundred rows an hour rather than
    /// four upserts a commit. The fold commits with the batch; should it fail, its hours wait for
    /// the next batch and readers still find them in the link hours.
    private func foldClosedHours() {
        guard foldsClosedHours else { return }
        let closedHour = Int64(Date().timeIntervalSince1970) / 3_600 - 1
        guard closedHour > rollups.foldedThroughHour else { return }
        do { try fold(through: closedHour) } catch {
            logger.warning("folding closed hours into the rollups failed; the next batch tries again", metadata: ["error": "\(error)"])
        }
    }

    /// Off: hours are folded only when `foldRollups(through:)` says (tests of the hours in between).
    @_spi(StoreInternals) public var foldsClosedHours: Bool {
        get { foldsAutomatically.load(ordering: .relaxed) }
        set { foldsAutomatically.store(newValue, ordering: .relaxed) }
    }
    private let foldsAutomatically = Atomic<Bool>(true)

    private func fold(through hour: Int64) throws {
        let before = rollups.foldedThroughHour
        try connection.run("SAVEPOINT rollup_fold")
        do {
            try rollups.fold(through: hour, connection)
            try connection.run("RELEASE rollup_fold")
        } catch {
            rollups.foldedThroughHour = before
            _ = try? connection.run("ROLLBACK TO rollup_fold")
            _ = try? connection.run("RELEASE rollup_fold")
            throw error
        }
    }

    /// Folds every hour up to `hour` now (a copy to PostgreSQL, whose rollups keep none apart; tests).
    @_spi(StoreInternals) public func foldRollups(through hour: Int64) throws {
        try writeAndWait { [self] _ in try fold(through: hour) }
    }

    /// Tells each caller its outcome (`error(index)` nil: committed). Callers' completions build
    /// responses or read more, so they run off the writer thread: handed to their delivery, or
    /// else run one after another on the completion queue.
    private func complete(_ batch: [WriteItem], error: @escaping @Sendable (Int) -> (any Error)?) {
        var undelivered = false
        // Few targets per batch (one per event loop): a linear search beats hashing here.
        var groups: [(delivery: WriteDelivery, indices: [Int])] = []
        for (index, item) in batch.enumerated() {
            guard let delivery = item.delivery else {
                undelivered = true
                continue
            }
            if let group = groups.firstIndex(where: { $0.delivery.target == delivery.target }) {
                groups[group].indices.append(index)
            } else {
                groups.append((delivery, [index]))
            }
        }
        for group in groups {
            let indices = group.indices
            group.delivery.send { for index in indices { batch[index].finish(error(index)) } }
        }
        guard undelivered else { return }
        completionQueue.async {
            for (index, item) in batch.enumerated() where item.delivery == nil { item.finish(error(index)) }
        }
    }
}

/// One queued write. Its result is kept until the fate of its transaction is known.
private final class WriteItem: @unchecked Sendable {
    /// Runs the work on the writer connection; false when it threw.
    let execute: (SQLiteConnection) -> Bool
    let acknowledged: Bool
    let delivery: WriteDelivery?
    private let report: ((any Error)?) -> Void

    init<T>(
        work: @escaping (SQLiteConnection) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void,
        acknowledged: Bool, delivery: WriteDelivery?
    ) {
        self.acknowledged = acknowledged
        self.delivery = delivery
        let outcome = Outcome<T>()
        execute = { connection in
            let result = Result { try work(connection) }
            outcome.value = result
            if case .failure = result { return false }
            return true
        }
        report = { transactionError in
            if let transactionError {
                completion(.failure(transactionError))
            } else {
                completion(outcome.value ?? .failure(SQLiteError(code: 1, message: "write did not run")))
            }
        }
    }

    /// - Parameter transactionError: why the transaction (or this item's savepoint) failed, if it did.
    func finish(_ transactionError: (any Error)?) { report(transactionError) }
}

private final class Outcome<T> {
    var value: Result<T, any Error>?
}
