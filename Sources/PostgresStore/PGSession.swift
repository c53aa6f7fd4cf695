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
        delivery: WriteDelivery?, readingAhead: [(sql: String, values: [SQLValue])], laneKey: String?,
        _ work: @escaping @Sendable (PGConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        writer.write(delivery: delivery, readingAhead: readingAhead, laneKey: laneKey, work, completion: completion)
    }
}
