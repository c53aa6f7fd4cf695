public import Counting
public import SQLValues
public import StoreContracts

/// A result row read by column name (or position), as SQLite's `Row` and PostgreSQL's `PGRow` both read: row
/// mappings written against it (a project, a link) serve both backends.
@_spi(StoreInternals) public protocol ColumnReader {
    func string(_ name: String) -> String
    func optionalString(_ name: String) -> String?
    func int(_ name: String) -> Int64
    func optionalInt(_ name: String) -> Int64?
    func double(_ name: String) -> Double
    func optionalDouble(_ name: String) -> Double?
    func bool(_ name: String) -> Bool
    func blob(_ name: String) -> [UInt8]
    func string(_ column: Int32) -> String
    func optionalString(_ column: Int32) -> String?
    func int(_ column: Int32) -> Int64
    func optionalInt(_ column: Int32) -> Int64?
    func double(_ column: Int32) -> Double
    func optionalDouble(_ column: Int32) -> Double?
    func bool(_ column: Int32) -> Bool
    func blob(_ column: Int32) -> [UInt8]
}

/// A row's columns named with a prefix (`l_id` for a joined link's `id`), read by their names
/// without it, so that a mapping written for a table's own rows reads them.
struct PrefixedColumns<Row: ColumnReader>: ColumnReader {
    let row: Row
    let prefix: String

    init(_ row: Row, prefix: String) {
        self.row = row
        self.prefix = prefix
    }

    func string(_ name: String) -> String { row.string(prefix + name) }
    func optionalString(_ name: String) -> String? { row.optionalString(prefix + name) }
    func int(_ name: String) -> Int64 { row.int(prefix + name) }
    func optionalInt(_ name: String) -> Int64? { row.optionalInt(prefix + name) }
    func double(_ name: String) -> Double { row.double(prefix + name) }
    func optionalDouble(_ name: String) -> Double? { row.optionalDouble(prefix + name) }
    func bool(_ name: String) -> Bool { row.bool(prefix + name) }
    func blob(_ name: String) -> [UInt8] { row.blob(prefix + name) }
    func string(_ column: Int32) -> String { row.string(column) }
    func optionalString(_ column: Int32) -> String? { row.optionalString(column) }
    func int(_ column: Int32) -> Int64 { row.int(column) }
    func optionalInt(_ column: Int32) -> Int64? { row.optionalInt(column) }
    func double(_ column: Int32) -> Double { row.double(column) }
    func optionalDouble(_ column: Int32) -> Double? { row.optionalDouble(column) }
    func bool(_ column: Int32) -> Bool { row.bool(column) }
    func blob(_ column: Int32) -> [UInt8] { row.blob(column) }
}

/// A connection as SQL shared by both backends uses it: statements with `?` placeholders and
/// values built once (`[SQLValue]`, which SQLite binds too), rows read through `ColumnReader`.
/// For code off the hot paths (SKAN evaluation); the hot paths keep SQLite's parameter packs.
@_spi(StoreInternals) public protocol StoreSession: PipelineHooks, TransactionSteps {
    associatedtype Reader: ColumnReader
    /// Which SQL the session speaks, for the few statements whose text differs. Behaviour that
    /// differs asks the two traits below, which say why.
    static var dialect: SQLDialect { get }
    /// Whether other writers commit beside this session's transactions (the lanes of a node's
    /// writer, other nodes): a row read may be claimed by another before this claim (claims skip
    /// rows another holds), a key looked for may be stored by another before this insert, work
    /// done once takes a lock, and sequence values commit out of order. False on SQLite's one
    /// writer, where what a transaction read holds until it commits.
    static var hasConcurrentWriters: Bool { get }
    /// Whether each statement is a round trip to another process, so that reads pay to be
    /// combined into one statement (tier 0's lookups, the cascade's candidates). False on SQLite,
    /// whose statements are function calls.
    static var statementsAreRoundTrips: Bool { get }
    @discardableResult
    func run(_ sql: String, values: [SQLValue]) throws -> Int
    func query<T>(_ sql: String, values: [SQLValue], map: (Reader) throws -> T) throws -> [T]
    /// The same with the values as a parameter pack: code generic over the session and
    /// specialised for SQLite binds them as SQLite's own calls do, without an array.
    @discardableResult
    func run<each Value: StoreArgument>(_ sql: String, _ values: repeat each Value) throws -> Int
    func query<T, each Value: StoreArgument>(_ sql: String, _ values: repeat each Value, map: (Reader) throws -> T) throws -> [T]
    func queryOne<T, each Value: StoreArgument>(_ sql: String, _ values: repeat each Value, map: (Reader) throws -> T) throws -> T?
    /// Adds what `Counting` says the transaction's writes add to the rollups, with the
    /// transaction: SQLite's writer collects a batch's deltas and upserts each key once before its
    /// COMMIT; PostgreSQL writes them as delta rows, which its fold adds up (postgres/0003).
    func count(_ deltas: Deltas) throws
    /// A link's clicks by hour as the rollups hold them, with what this transaction counted of
    /// it and has not added up yet: what moves to "no link" when the link is deleted.
    func rollupClickHours(projectID: String, linkID: String) throws -> [(hour: Int64, clicks: Int64, botClicks: Int64)]
}

@_spi(StoreInternals) public enum SQLDialect: Sendable { case sqlite, postgres }

/// A value both backends bind.
@_spi(StoreInternals) public protocol StoreArgument: SQLiteValue, SQLBindable {}
@_spi(StoreInternals) extension String: StoreArgument {}
@_spi(StoreInternals) extension Int: StoreArgument {}
@_spi(StoreInternals) extension Int64: StoreArgument {}
@_spi(StoreInternals) extension Double: StoreArgument {}
@_spi(StoreInternals) extension Bool: StoreArgument {}
@_spi(StoreInternals) extension Array: StoreArgument where Element == UInt8 {}
@_spi(StoreInternals) extension Optional: StoreArgument where Wrapped: StoreArgument {}
@_spi(StoreInternals) extension SQLValue: StoreArgument {}

@_spi(StoreInternals) extension SQLiteConnection: StoreSession {
    public static var dialect: SQLDialect { .sqlite }
    public static var hasConcurrentWriters: Bool { false }
    public static var statementsAreRoundTrips: Bool { false }
    public func query<T>(_ sql: String, values: [SQLValue], map: (Row) throws -> T) throws -> [T] {
        let statement = try bound(sql, values)
        defer { statement.reset() }
        var rows: [T] = []
        while try statement.step() { rows.append(try map(Row(statement: statement))) }
        return rows
    }
}

@_spi(StoreInternals) extension Row: ColumnReader {}

@_spi(StoreInternals) extension SQLiteConnection {
    public func count(_ deltas: Deltas) throws {
        guard !deltas.isEmpty else { return }
        if let rollupCollector { return rollupCollector.add(deltas) }
        let alone = try Self.collectorAlone(self)
        alone.add(deltas)
        try alone.flush(self)
    }

    /// A click counted by `Counting.click` at the writer's flush (no deltas built per click).
    func count(click: ClickFact) throws {
        if let rollupCollector { return rollupCollector.add(click: click) }
        let alone = try Self.collectorAlone(self)
        alone.add(click: click)
        try alone.flush(self)
    }

    public func rollupClickHours(projectID: String, linkID: String) throws -> [(hour: Int64, clicks: Int64, botClicks: Int64)] {
        try (rollupCollector ?? RollupCollector()).clickHours(projectID: projectID, linkID: linkID, self)
    }

    /// For a connection that is not the writer's (a tool's): its writes' deltas added up at once.
    private static func collectorAlone(_ connection: SQLiteConnection) throws -> RollupCollector {
        let collector = RollupCollector()
        collector.foldedThroughHour = try connection.queryOne("SELECT through_hour FROM rollup_folded") { $0.int(0) } ?? .max
        return collector
    }
}

/// Where a store gets a session: to read (SQLite's reader pool, a PostgreSQL pool), and to write
/// in a transaction that has committed when the call returns (SQLite's single writer, a pooled
/// PostgreSQL transaction). A store written over it (`Browse`, `SigningKeys`) is one
/// implementation for both backends.
@_spi(StoreInternals) public protocol SessionSource: Sendable {
    associatedtype Session: StoreSession
    func read<T>(_ body: (Session) throws -> T) throws -> T
    @discardableResult
    func writeSession<T>(_ body: @escaping (Session) throws -> T) throws -> T
    /// Queues `work` for group commit (SQLite's writer, `PGWriter`); `completion` runs once its
    /// transaction committed, through `delivery` when given. Never blocks the caller.
    func write<T: Sendable>(
        delivery: WriteDelivery?, _ work: @escaping @Sendable (Session) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void)
    /// The same, with the statements `work` will query first whatever it finds, for a backend
    /// whose reads are round trips to send them ahead (`PGWriter`), and `laneKey`: writes of one
    /// key commit one after another there (on one lane), so that two of them never wait on each
    /// other's uncommitted rows from two transactions. SQLite, one writer, runs `work` as is.
    func write<T: Sendable>(
        delivery: WriteDelivery?, readingAhead: @autoclosure () -> [(sql: String, values: [SQLValue])], laneKey: String?,
        _ work: @escaping @Sendable (Session) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void)
}

extension SessionSource {
    /// One writer whose reads are function calls: `readingAhead` is never built.
    public func write<T: Sendable>(
        delivery: WriteDelivery?, readingAhead: @autoclosure () -> [(sql: String, values: [SQLValue])], laneKey: String?,
        _ work: @escaping @Sendable (Session) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        write(delivery: delivery, work, completion: completion)
    }
}

@_spi(StoreInternals) extension Database: SessionSource {
    @discardableResult
    public func writeSession<T>(_ body: @escaping (SQLiteConnection) throws -> T) throws -> T { try writeAndWait(body) }

    public func write<T: Sendable>(
        delivery: WriteDelivery?, _ work: @escaping @Sendable (SQLiteConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        write(priority: .acknowledged, delivery: delivery, work, completion: completion)
    }
}
