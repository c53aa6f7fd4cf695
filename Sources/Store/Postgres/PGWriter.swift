import Dispatch
import Foundation
import Synchronization

/// Group commit on PostgreSQL: writes queued from any thread run one after another on one pooled
/// connection, as many as have gathered (up to `maxBatch`) in one transaction; one refused write
/// does not take its batch down (`commit`). Every caller is told its outcome after the COMMIT,
/// through its `delivery` like `DatabaseWriter`'s. Each node has its own
/// writer; nodes commit side by side and their rows meet at the database's constraints.
public final class PGWriter: Sendable {
    private let pool: PGPool
    private let maxBatch: Int
    private let queue = DispatchQueue(label: "attributiond.pg-writer")
    private let completionQueue = DispatchQueue(label: "attributiond.pg-writer.completions")
    private let pending = Mutex<(items: [Item], draining: Bool)>(([], false))

    private struct Item: Sendable {
        /// Runs the write; what to tell its caller once the transaction committed.
        let run: @Sendable (PGConnection) throws -> @Sendable () -> Void
        let fail: @Sendable (any Error) -> Void
        let delivery: DatabaseWriter.Delivery?
        /// A write that is one statement whose answer nobody reads before the COMMIT: batches of
        /// these go through libpq's pipeline; `told` hands the caller its row count.
        var statement: (sql: String, values: [PGValue], told: @Sendable (Int) -> Void)? = nil
    }

    private let commits = Atomic<Int>(0)
    private let committedWrites = Atomic<Int>(0)
    private let lastBatch = Atomic<Int>(0)
    private let lastCommitNanoseconds = Atomic<Int>(0)
    private let queued = Atomic<Int>(0)

    /// The write path's counters, as SQLite's writer keeps them (/metrics).
    public var statistics: WriteStatistics {
        WriteStatistics(commits: commits.load(ordering: .relaxed), committedWrites: committedWrites.load(ordering: .relaxed),
                        queueDepth: queued.load(ordering: .relaxed),
                        lastCommitSeconds: Double(lastCommitNanoseconds.load(ordering: .relaxed)) / 1e9,
                        lastBatchSize: lastBatch.load(ordering: .relaxed))
    }

    public init(pool: PGPool, maxBatch: Int = 256) {
        self.pool = pool
        self.maxBatch = max(1, maxBatch)
    }

    /// Queues `work`; `completion` runs once its transaction committed (or failed), off the caller.
    public func write<T: Sendable>(delivery: DatabaseWriter.Delivery? = nil, _ work: @escaping @Sendable (PGConnection) throws -> T,
                                   completion: @escaping @Sendable (Result<T, any Error>) -> Void) {
        let item = Item(run: { connection in
            let value = try work(connection)
            return { completion(.success(value)) }
        }, fail: { completion(.failure($0)) }, delivery: delivery)
        enqueue(item)
    }

    /// Queues one statement (`?` placeholders); `completion` hears the rows it changed once its
    /// transaction committed. Batches made only of these are pipelined: one round trip a batch.
    public func write(statement sql: String, _ values: [PGValue], delivery: DatabaseWriter.Delivery? = nil,
                      completion: @escaping @Sendable (Result<Int, any Error>) -> Void) {
        let item = Item(run: { connection in
            let changed = try connection.query(sql, values).affected
            return { completion(.success(changed)) }
        }, fail: { completion(.failure($0)) }, delivery: delivery, statement: (sql, values, { completion(.success($0)) }))
        enqueue(item)
    }

    private func enqueue(_ item: Item) {
        queued.add(1, ordering: .relaxed)
        let start = pending.withLock { state -> Bool in
            state.items.append(item)
            if state.draining { return false }
            state.draining = true
            return true
        }
        if start { queue.async { self.drain() } }
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

    private func drain() {
        while true {
            let batch = pending.withLock { state -> [Item] in
                let taken = Array(state.items.prefix(maxBatch))
                state.items.removeFirst(taken.count)
                if taken.isEmpty { state.draining = false }
                return taken
            }
            if batch.isEmpty { return }
            let started = DispatchTime.now().uptimeNanoseconds
            commit(batch)
            queued.subtract(batch.count, ordering: .relaxed)
            commits.add(1, ordering: .relaxed)
            committedWrites.add(batch.count, ordering: .relaxed)
            lastBatch.store(batch.count, ordering: .relaxed)
            lastCommitNanoseconds.store(Int(DispatchTime.now().uptimeNanoseconds - started), ordering: .relaxed)
        }
    }

    /// A write that throws is rare (a conflict, a refused value), so a batch first runs plainly,
    /// one round trip per write; only when one of its writes throws is the transaction rolled
    /// back and the batch run again with a savepoint around each write (two more round trips
    /// each), so that the refused write fails alone.
    private func commit(_ batch: [Item]) {
        if batch.allSatisfy({ $0.statement != nil }), let counts = pipelined(batch) {
            for (index, item) in batch.enumerated() {
                let told = item.statement!.told, count = counts[index]
                if let delivery = item.delivery { delivery.send { told(count) } } else { completionQueue.async { told(count) } }
            }
            return
        }
        var outcomes: [(any Error)?] = Array(repeating: nil, count: batch.count)
        var finishers: [(@Sendable () -> Void)?] = Array(repeating: nil, count: batch.count)
        struct OneRefused: Error {}
        do {
            do {
                try pool.transaction { connection in
                    for (index, item) in batch.enumerated() {
                        do {
                            finishers[index] = try item.run(connection)
                        } catch let error as PGError where error.isConnectionLost || error.isRetryable {
                            throw error  // the whole batch: lost, or run again by the pool
                        } catch {
                            if batch.count == 1 { throw error }
                            throw OneRefused()
                        }
                    }
                }
            } catch is OneRefused {
                finishers = finishers.map { _ in nil }
                try pool.transaction { connection in
                    for (index, item) in batch.enumerated() {
                        try connection.execute("SAVEPOINT write")
                        do {
                            finishers[index] = try item.run(connection)
                            try connection.execute("RELEASE write")
                        } catch let error as PGError where error.isConnectionLost {
                            throw error
                        } catch {
                            try connection.execute("ROLLBACK TO write")
                            outcomes[index] = (error as? PGError).map { $0.isUnstorable ? StoreError.unstorable($0.message) as any Error : $0 } ?? error
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
            let outcome = outcomes[index], finisher = finishers[index]
            let finish: @Sendable () -> Void = { if let finisher, outcome == nil { finisher() } else { item.fail(outcome ?? StoreError.unavailable("the write was not committed")) } }
            if let delivery = item.delivery { delivery.send(finish) } else { completionQueue.async(execute: finish) }
        }
    }
}
