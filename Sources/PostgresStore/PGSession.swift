public import Counting
public import PostgresClient
public import SQLValues
@_spi(StoreInternals) public import Store
public import StoreContracts

/// PostgreSQL's connection as the SQL both backends share uses it (`StoreSession`).
@_spi(StoreInternals) extension PGConnection: StoreSession {
    public static var dialect: SQLDialect { .postgres }
    public static var hasConcurrentWriters: Bool { true }
    public static var statementsAreRoundTrips: Bool { true }
    public func query<T>(_ sql: String, values: [SQLValue], map: (PGRow) throws -> T) throws -> [T] {
        let rows = try query(sql, values)
        return try (0..<rows.rows.count).map { try map(PGRow(rows: rows, index: $0)) }
    }
}

@_spi(StoreInternals) extension PGRow: ColumnReader {}

/// PostgreSQL's pipeline (`PGPipeline.swift`, `PGAccess.swift` in PostgresClient) answers the hooks.
@_spi(StoreInternals) extension PGConnection: PipelineHooks {}

extension PGConnection {
    /// Runs a statement (`?` placeholders) with `values` bound in order; the rows it changed.
    @discardableResult
    public func run(_ sql: String, values: [SQLValue]) throws(PGError) -> Int { try query(sql, values).affected }
}

extension PGError: DatabaseLibraryError {
    /// A full disk on the database's host (SQLSTATE 53100, disk_full).
    public var isStorageFull: Bool { sqlState == "53100" }
}

/// A PostgreSQL node's sessions: reads and admin transactions on the pool, queued writes on the
/// node's `PGWriter` (group commit).
@_spi(StoreInternals) public struct PGSource: SessionSource {
    public let pool: PGPool
    public let writer: PGWriter

    public init(pool: PGPool, writer: PGWriter) {
        self.pool = pool
        self.writer = writer
    }

    public func read<T>(_ body: (PGConnection) throws -> T) throws -> T { try pool.read(body) }

    @discardableResult
    public func writeSession<T>(_ body: @escaping (PGConnection) throws -> T) throws -> T { try pool.transaction(body) }

    public func write<T: Sendable>(
        delivery: WriteDelivery?, _ work: @escaping @Sendable (PGConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        writer.write(delivery: delivery, work, completion: completion)
    }

    public func write<T: Sendable>(
        delivery: WriteDelivery?, readingAhead: @autoclosure () -> [(sql: String, values: [SQLValue])], laneKey: String?,
        _ work: @escaping @Sendable (PGConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        writer.write(delivery: delivery, readingAhead: readingAhead(), laneKey: laneKey, work, completion: completion)
    }
}

/// PostgreSQL's rollup deltas: rows of the delta tables (postgres/0003) written with the
/// transaction, without waiting for their answers in a writer's batch (consecutive rows of one
/// table go as one multi-row INSERT), a writer's batch's added up first (`PGRollupBatch`);
/// `rollup_fold` adds them up.
@_spi(StoreInternals) extension PGConnection {
    public func runHeld(_ sql: String, _ values: [SQLValue]) throws {
        if let batch = PGRollupBatch.of(self) { return batch.hold(sql, values) }
        try runUnanswered(sql, values)
    }

    public func writeHeld() throws { try PGRollupBatch.of(self)?.writeHeld(self) }

    public func count(_ deltas: Deltas) throws {
        if let batch = PGRollupBatch.of(self) { return batch.add(deltas) }
        for delta in deltas.counts {
            try runUnanswered(
                "INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(delta.projectID), .integer(delta.at), .text(delta.linkID), .boolean(delta.inHours),
                    .text("{" + delta.counters.values.map(String.init).joined(separator: ",") + "}"),
                ])
        }
        for delta in deltas.money {
            try runUnanswered(
                "INSERT INTO rollup_money_deltas (project_id, at, link_id, in_hours, kind, currency, amount, entries) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(delta.projectID), .integer(delta.at), .text(delta.linkID), .boolean(delta.inHours), .text(delta.kind.rawValue),
                    .text(delta.currency), .real(delta.amount), .integer(delta.entries),
                ])
        }
        for delta in deltas.tallies {
            try runUnanswered(
                "INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs) VALUES (?, ?, ?, ?, ?)",
                [.text(delta.projectID), .integer(delta.at), .text(delta.dimension), .text(delta.value), .integer(delta.count)])
        }
    }

    /// The link's hours as folded, with the deltas not folded yet (committed, and this
    /// transaction's own).
    public func rollupClickHours(projectID: String, linkID: String) throws -> [(hour: Int64, clicks: Int64, botClicks: Int64)] {
        try query(
            """
            SELECT hour, sum(clicks), sum(bot_clicks) FROM (
                SELECT hour, clicks, bot_clicks FROM rollup_link_hours WHERE project_id = ?1 AND link_id = ?2
                UNION ALL
                SELECT at / 3600000, counts[1], counts[2] FROM rollup_count_deltas WHERE project_id = ?1 AND link_id = ?2
            ) AS hours GROUP BY hour HAVING sum(clicks) <> 0 OR sum(bot_clicks) <> 0 ORDER BY hour
            """, projectID, linkID, map: { (hour: $0.int(0), clicks: $0.int(1), botClicks: $0.int(2)) })
    }
}
