import Counting
import PostgresClient
import SQLValues
@_spi(StoreInternals) import Store

/// The rollup deltas of one `PGWriter` batch, added up by key and written as rows of the delta
/// tables once, before the batch's COMMIT: a hundred events of one project's hour write a few
/// delta rows, not seven each. A write rolled back to its savepoint drops its own (`mark`).
final class PGRollupBatch {
    private var deltas = Deltas()
    /// What the batch's writes stored of each install (`storedEarlier`): its reads ahead, sent
    /// with the BEGIN, miss it.
    var stored: [String: StoredEarlier] = [:]

    func add(_ more: Deltas) { deltas.append(more) }

    struct Mark { let counts: Int, money: Int, tallies: Int, stored: [String: StoredEarlier] }
    var mark: Mark { Mark(counts: deltas.counts.count, money: deltas.money.count, tallies: deltas.tallies.count, stored: stored) }

    func rollBack(to mark: Mark) {
        deltas.counts.removeSubrange(mark.counts...)
        deltas.money.removeSubrange(mark.money...)
        deltas.tallies.removeSubrange(mark.tallies...)
        stored = mark.stored
    }

    /// The deltas by hour (the fold files a delta under its hour and day, which its hour's start
    /// shares), each key once.
    var byHour: Deltas {
        var hourly = deltas
        for index in hourly.counts.indices { hourly.counts[index].at = hourly.counts[index].at / 3_600_000 * 3_600_000 }
        for index in hourly.money.indices { hourly.money[index].at = hourly.money[index].at / 3_600_000 * 3_600_000 }
        for index in hourly.tallies.indices { hourly.tallies[index].at = hourly.tallies[index].at / 3_600_000 * 3_600_000 }
        return hourly.netted
    }

    /// Runs `body` (a writer's batch) with its deltas kept here, then writes them.
    static func collecting<T>(_ connection: PGConnection, _ body: () throws -> T) throws -> T {
        let batch = PGRollupBatch()
        connection.transactionState = batch
        defer { connection.transactionState = nil }
        let result = try body()
        connection.transactionState = nil
        try connection.count(batch.byHour)
        return result
    }

    static func of(_ connection: PGConnection) -> PGRollupBatch? { connection.transactionState as? PGRollupBatch }
}
