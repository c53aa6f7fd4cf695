import Dispatch
import Foundation
public import PostgresClient
public import SQLValues
@_spi(StoreInternals) import Store
public import StoreContracts
import Synchronization

/// Group commit on PostgreSQL: writes queued from any thread gather into transactions of up to
/// `maxBatch` writes; one refused write does not take its batch down (`commit`). Every caller is
/// told its outcome after the COMMIT, through its `delivery` like `DatabaseWriter`'s.
///
/// A write on PostgreSQL costs round trips, not CPU here: one lane (one connection committing one
/// batch after another) would leave the node waiting on the network. So writes spread over
/// `lanes` lanes, each its own connection and batches, committing side by side as nodes do (their
/// rows meet at the database's constraints; a click claimed by two lanes at once goes to one).
/// Writes that must follow one another keep to lane 0 in order: clicks, and the beacons that
/// complete them.
public final class PGWriter: Sendable {
    private let pool: PGPool
    private let maxBatch: Int
    private let lanes: [Lane]
    private let nextLane = Atomic<Int>(0)
    private let completionQueue = DispatchQueue(label: "attributiond.pg-writer.completions")

    private final class Lane: Sendable {
        let queue: DispatchQueue
        /// Items queued, with their place in the lane (`enqueued` after each).
        let pending = Mutex<(items: [Item], draining: Bool, enqueued: Int)>(([], false, 0))
        init(_ index: Int) {
            queue = DispatchQueue(label: "attributiond.pg-writer.\(index)")
            queue.setSpecific(key: PGWriter.laneIndex, value: index)
        }
    }

    private static let laneIndex = DispatchSpecificKey<Int>()

    /// The lane the calling write runs on (nil outside the writer): which lanes writes take is
    /// behaviour the tests check, and a lane is not one connection (it takes any from the pool).
    @_spi(StoreInternals) public static var currentLane: Int? { DispatchQueue.getSpecific(key: laneIndex) }

    /// Lane 0's writes done (committed or failed), in order: a write on another lane waits for
    /// every lane-0 write queued before it, so that an install sees the clicks queued before it
    /// (as on SQLite's single writer), whatever backlog of clicks lane 0 has.
    private let orderedDone = OrderedProgress()

    final class OrderedProgress: @unchecked Sendable {
        private let condition = NSCondition()
        private var done = 0

        func advance(by count: Int) {
            condition.lock()
            done += count
            condition.broadcast()
            condition.unlock()
        }

        func wait(until count: Int) {
            condition.lock()
            while done < count { condition.wait() }
            condition.unlock()
        }
    }

    private struct Item: Sendable {
        /// Runs the write; what to tell its caller once the transaction committed.
        let run: @Sendable (PGConnection) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
        let delivery: WriteDelivery?
        /// A write that is one statement whose answer nobody reads before the COMMIT: batches of
        /// these go through libpq's pipeline; `told` hands the caller its row count.
        var statement: (sql: String, values: [SQLValue], told: @Sendable (Int) -> Void)? = nil
        /// A row that may join others of the same `RowsStatement` in one statement.
        var row: (statement: RowsStatement, values: [SQLValue])? = nil
        /// Lane 0's writes that must be done first (set when queued on another lane).
        var after = 0
        /// Reads the write will make, sent with its batch's BEGIN (`PGPool.transaction`).
        var readAhead: [(sql: String, values: [SQLValue])] = []
    }

    /// A statement that writes any number of rows at once (`sql(rows)`), each row's values in
    /// order; `write(row:into:)` queues one row, and a batch of rows of one statement is one
    /// statement. Its text for each row count is built once.
    public final class RowsStatement: Sendable {
        private let build: @Sendable (Int) -> String
        private let texts = Mutex<[Int: String]>([:])

        public init(_ build: @escaping @Sendable (Int) -> String) { self.build = build }

        func sql(rows: Int) -> String {
            if let text = texts.withLock({ $0[rows] }) { return text }
            let text = build(rows)
            texts.withLock { $0[rows] = text }
            return text
        }
    }

    private let commits = Atomic<Int>(0)
    private let committedWrites = Atomic<Int>(0)
    private let lastBatch = Atomic<Int>(0)
    private let lastCommitNanoseconds = Atomic<Int>(0)
    private let queued = Atomic<Int>(0)
    private let lostWrites = Atomic<Int>(0)

    /// Counts a write whose caller does not wait for it (a click) and that failed.
    func noteLostWrite() { lostWrites.add(1, ordering: .relaxed) }

    /// The write path's counters, as SQLite's writer keeps them (/metrics).
    public var statistics: WriteStatistics {
        WriteStatistics(
            commits: commits.load(ordering: .relaxed), committedWrites: committedWrites.load(ordering: .relaxed),
            queueDepth: queued.load(ordering: .relaxed),
            lastCommitSeconds: Double(lastCommitNanoseconds.load(ordering: .relaxed)) / 1e9,
            lastBatchSize: lastBatch.load(ordering: .relaxed), lostWrites: lostWrites.load(ordering: .relaxed))
    }

    /// - Parameter lanes: connections committing side by side (the pool needs that many more
    ///   than its readers).
    public init(pool: PGPool, maxBatch: Int = 256, lanes: Int = 4) {
        self.pool = pool
        self.maxBatch = max(1, maxBatch)
        self.lanes = (0..<max(1, lanes)).map(Lane.init)
    }

    /// Queues `work`; `completion` runs once its transaction committed (or failed), off the caller.
    /// - Parameter ordered: run after every ordered write queued before it (lane 0), as a
    ///   click's beacon must follow its click.
    /// - Parameter readingAhead: statements `work` will query first, whatever it finds: the
    ///   batch's writes send theirs together with its BEGIN, one round trip for all (an install's
    ///   tier 0 and candidate reads), where each would otherwise be one of its own.
    /// - Parameter laneKey: writes of one key (an install's instance id) keep to one lane, so
    ///   they commit one after another: on two lanes, two inserts of one instance each wait for
    ///   the other's uncommitted row, and with the writes of a batch sent without waiting, two
    ///   such pairs crossed deadlocked (PostgreSQL breaks a deadlock after a second).
    public func write<T: Sendable>(
        delivery: WriteDelivery? = nil, ordered: Bool = false,
        readingAhead: [(sql: String, values: [SQLValue])] = [], laneKey: String? = nil,
        _ work: @escaping @Sendable (PGConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        var item = Item(
            run: { connection in
                let value = try work(connection)
                return { completion(.success(value)) }
            }, fail: { completion(.failure($0)) }, delivery: delivery)
        item.readAhead = readingAhead
        enqueue(item, on: ordered ? lanes[0] : unorderedLane(for: laneKey))
    }

    /// Lanes 1… take the writes that need no order (lane 0 too when it is the only one), so that
    /// a backlog of clicks never holds an install or an event up: by key when there is one, else
    /// in turn.
    private func unorderedLane(for key: String? = nil) -> Lane {
        guard lanes.count > 1 else { return lanes[0] }
        let turn = key.map { Int(UInt(bitPattern: $0.hashValue) % UInt(lanes.count - 1)) } ?? nextLane.add(1, ordering: .relaxed).newValue
        return lanes[1 + turn % (lanes.count - 1)]
    }

    /// Queues one statement (`?` placeholders); `completion` hears the rows it changed once its
    /// transaction committed. Batches made only of these are pipelined: one round trip a batch.
    public func write(
        statement sql: String, _ values: [SQLValue], delivery: WriteDelivery? = nil,
        completion: @escaping @Sendable (Result<Int, any Error>) -> Void
    ) {
        let item = Item(
            run: { connection in
                let changed = try connection.query(sql, values).affected
                return { completion(.success(changed)) }
            }, fail: { completion(.failure($0)) }, delivery: delivery, statement: (sql, values, { completion(.success($0)) }))
        enqueue(item, on: lanes[0])
    }

    /// Queues one row of `statement`, on lane 0 in order. Rows queued together are written by one
    /// statement; when that statement is refused, each row is written alone so that the refused
    /// one fails by itself.
    public func write(
        row values: [SQLValue], into statement: RowsStatement, delivery: WriteDelivery? = nil,
        completion: @escaping @Sendable (Result<Void, any Error>) -> Void
    ) {
        let sql = statement.sql(rows: 1)
        var item = Item(
            run: { connection in
                _ = try connection.query(sql, values)
                return { completion(.success(())) }
            }, fail: { completion(.failure($0)) }, delivery: delivery, statement: (sql, values, { _ in completion(.success(())) }))
        item.row = (statement, values)
        enqueue(item, on: lanes[0])
    }

    private func enqueue(_ item: Item, on lane: Lane) {
        queued.add(1, ordering: .relaxed)
        var item = item
        if lane !== lanes[0] { item.after = lanes[0].pending.withLock { $0.enqueued } }
        let start = lane.pending.withLock { state -> Bool in
            state.items.append(item)
            state.enqueued += 1
            if state.draining { return false }
            state.draining = true
            return true
        }
        if start { lane.queue.async { self.drain(lane) } }
    }

    /// Returns once every write queued before the call, on every lane, has committed.
    public func waitForQueuedWrites() throws {
        let done = DispatchGroup()
        for lane in lanes {
            done.enter()
            enqueue(Item(run: { _ in { done.leave() } }, fail: { _ in done.leave() }, delivery: .immediate), on: lane)
        }
        done.wait()
    }

    /// Queues `work` and waits for its commit (admin and tests; never on an event loop).
    @discardableResult
    public func writeAndWait<T: Sendable>(_ work: @escaping @Sendable (PGConnection) throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        write(delivery: .immediate, work) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// Takes everything queued at once (a backlog of a million clicks is one swap, not a million
    /// shifts of the rest per batch) and commits it in batches of at most `maxBatch`.
    private func drain(_ lane: Lane) {
        while true {
            let taken = lane.pending.withLock { state -> [Item] in
                if state.items.isEmpty { state.draining = false }
                defer { state.items = [] }
                return state.items
            }
            if taken.isEmpty { return }
            for start in stride(from: 0, to: taken.count, by: maxBatch) {
                let batch = Array(taken[start..<min(start + maxBatch, taken.count)])
                if lane === lanes[0] {
                    commitCounted(batch)
                    orderedDone.advance(by: batch.count)
                } else {
                    orderedDone.wait(until: batch.map(\.after).max() ?? 0)
                    commitCounted(batch)
                }
            }
        }
    }

    private func commitCounted(_ batch: [Item]) {
        let started = DispatchTime.now().uptimeNanoseconds
        commit(batch)
        queued.subtract(batch.count, ordering: .relaxed)
        commits.add(1, ordering: .relaxed)
        committedWrites.add(batch.count, ordering: .relaxed)
        lastBatch.store(batch.count, ordering: .relaxed)
        lastCommitNanoseconds.store(Int(DispatchTime.now().uptimeNanoseconds - started), ordering: .relaxed)
    }

    /// A write that throws is rare (a conflict, a refused value), so a batch first runs plainly,
    /// its writes whose answers nobody reads sent without waiting (`PGConnection.runUnanswered`:
    /// answered with the next statement that waits, often the COMMIT); only when one of its
    /// writes throws is the transaction rolled back and the batch run again: each write waiting
    /// for its answer when one sent unanswered was refused, and with a savepoint around each
    /// write (two more round trips each) when one threw, so that the refused write fails alone.
    private func commit(_ batch: [Item]) {
        if batch.count > 1, let statement = batch[0].row?.statement, batch.allSatisfy({ $0.row?.statement === statement }),
            (try? pool.session({ try $0.pipelinedTransaction([(statement.sql(rows: batch.count), batch.flatMap { $0.row!.values })]) })) != nil
        {
            for item in batch {
                let told = item.statement!.told
                if let delivery = item.delivery { delivery.send { told(1) } } else { completionQueue.async { told(1) } }
            }
            return
        }
        if batch.allSatisfy({ $0.statement != nil }), let counts = pipelined(batch) {
            for (index, item) in batch.enumerated() {
                let told = item.statement!.told
                let count = counts[index]
                if let delivery = item.delivery { delivery.send { told(count) } } else { completionQueue.async { told(count) } }
            }
            return
        }
        var outcomes: [(any Error)?] = Array(repeating: nil, count: batch.count)
        var finishers: [(@Sendable () -> Void)?] = Array(repeating: nil, count: batch.count)
        struct OneRefused: Error {}
        func runAll(deferringWrites: Bool) throws {
            try pool.transaction(readingAhead: batch.flatMap(\.readAhead), deferringWrites: deferringWrites) { connection in
                try PGRollupBatch.collecting(connection) {
                    for (index, item) in batch.enumerated() {
                        do {
                            finishers[index] = try item.run(connection)
                        } catch let error as PGError where error.isConnectionLost || error.isRetryable || error.sentUnanswered {
                            throw error  // the whole batch: lost, run again by the pool, or run again below
                        } catch {
                            if batch.count == 1 { throw error }
                            throw OneRefused()
                        }
                    }
                }
            }
        }
        do {
            do {
                do {
                    try runAll(deferringWrites: true)
                } catch let error as PGError where error.sentUnanswered {
                    // A write sent without waiting was refused (most often an install's instance
                    // stored first by another lane or node): nothing was stored, and the batch runs
                    // again with each write waiting for its answer, which handles what it finds.
                    finishers = finishers.map { _ in nil }
                    try runAll(deferringWrites: false)
                }
            } catch is OneRefused {
                finishers = finishers.map { _ in nil }
                try pool.transaction { connection in
                    try PGRollupBatch.collecting(connection) {
                        for (index, item) in batch.enumerated() {
                            let mark = PGRollupBatch.of(connection)?.mark
                            try connection.execute("SAVEPOINT write")
                            do {
                                finishers[index] = try item.run(connection)
                                try connection.execute("RELEASE write")
                            } catch let error as PGError where error.isConnectionLost {
                                throw error
                            } catch {
                                try connection.execute("ROLLBACK TO write")
                                if let mark { PGRollupBatch.of(connection)?.rollBack(to: mark) }
                                outcomes[index] =
                                    (error as? PGError).map { $0.isUnstorable ? StoreError.unstorable($0.message) as any Error : $0 } ?? error
                            }
                        }
                    }
                }
            }
        } catch {
            // The transaction as a whole failed (the connection was lost, the COMMIT refused, or
            // the batch's only write threw): every write in it shares that outcome.
            let shared = (error as? PGError).map { $0.isConnectionLost ? StoreError.unavailable($0.message) : $0 as any Error } ?? error
            for index in outcomes.indices { outcomes[index] = outcomes[index] ?? shared }
            finishers = finishers.map { _ in nil }
        }
        deliver(batch, outcomes: outcomes, finishers: finishers)
    }

    /// The batch's row counts, committed in one pipelined round trip; nil when a statement was
    /// refused or the connection dropped (nothing was stored: the batch runs again the other way,
    /// which tells each write its own outcome).
    private func pipelined(_ batch: [Item]) -> [Int]? {
        try? pool.session { connection in
            try connection.pipelinedTransaction(batch.map { ($0.statement!.sql, $0.statement!.values) })
        }
    }

    private func deliver(_ batch: [Item], outcomes: [(any Error)?], finishers: [(@Sendable () -> Void)?]) {
        for (index, item) in batch.enumerated() {
            let outcome = outcomes[index]
            let finisher = finishers[index]
            let finish: @Sendable () -> Void = {
                if let finisher, outcome == nil { finisher() } else { item.fail(outcome ?? StoreError.unavailable("the write was not committed")) }
            }
            if let delivery = item.delivery { delivery.send(finish) } else { completionQueue.async(execute: finish) }
        }
    }
}
