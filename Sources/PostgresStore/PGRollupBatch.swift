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

    /// Rows the batch's writes hold to its end (`StoreSession.runHeld`): a fact's outbox jobs,
    /// which go as one multi-row INSERT instead of a statement between each fact's others. Rows
    /// before `written` are sent (a statement that reads them asked, `writeHeld`).
    private var held: [(sql: String, values: [SQLValue])] = []
    private var written = 0

    func add(_ more: Deltas) { deltas.append(more) }
    func hold(_ sql: String, _ values: [SQLValue]) { held.append((sql, values)) }

    /// Sends the held rows not sent yet (without waiting, consecutive rows of one statement together).
    func writeHeld(_ connection: PGConnection) throws {
        for row in held[written...] { try connection.runUnanswered(row.sql, row.values) }
        written = held.count
    }

    struct Mark { let counts: Int, money: Int, tallies: Int, held: Int, written: Int, stored: [String: StoredEarlier] }
    var mark: Mark {
        Mark(
            counts: deltas.counts.count, money: deltas.money.count, tallies: deltas.tallies.count, held: held.count, written: written,
            stored: stored)
    }

    /// Drops what the write after `mark` added; rows it sent that were held before it are sent
    /// again, as the savepoint's rollback took them back.
    func rollBack(to mark: Mark) {
        deltas.counts.removeSubrange(mark.counts...)
        deltas.money.removeSubrange(mark.money...)
        deltas.tallies.removeSubrange(mark.tallies...)
        held.removeSubrange(mark.held...)
        written = min(written, mark.written)
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
        try batch.writeHeld(connection)
        try connection.count(batch.byHour)
        return result
    }

    static func of(_ connection: PGConnection) -> PGRollupBatch? { connection.transactionState as? PGRollupBatch }
}
