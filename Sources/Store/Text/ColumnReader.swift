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
}

/// A connection as SQL shared by both backends uses it: statements with `?` placeholders and
/// values built once (`[PGValue]`, which SQLite binds too), rows read through `ColumnReader`.
/// For code off the hot paths (SKAN evaluation); the hot paths keep SQLite's parameter packs.
@_spi(StoreInternals) public protocol StoreSession {
    associatedtype Reader: ColumnReader
    @discardableResult
    func run(_ sql: String, values: [PGValue]) throws -> Int
    func query<T>(_ sql: String, values: [PGValue], map: (Reader) throws -> T) throws -> [T]
}

@_spi(StoreInternals) extension SQLiteConnection: StoreSession {
    public func query<T>(_ sql: String, values: [PGValue], map: (Row) throws -> T) throws -> [T] {
        let statement = try bound(sql, values)
        defer { statement.reset() }
        var rows: [T] = []
        while try statement.step() { rows.append(try map(Row(statement: statement))) }
        return rows
    }
}

@_spi(StoreInternals) extension PGConnection: StoreSession {
    public func query<T>(_ sql: String, values: [PGValue], map: (PGRow) throws -> T) throws -> [T] {
        let rows = try query(sql, values)
        return try (0..<rows.rows.count).map { try map(PGRow(rows: rows, index: $0)) }
    }
}

@_spi(StoreInternals) extension Row: ColumnReader {}
@_spi(StoreInternals) extension PGRow: ColumnReader {}

/// Where a store gets a session: to read (SQLite's reader pool, a PostgreSQL pool), and to write
/// in a transaction that has committed when the call returns (SQLite's single writer, a pooled
/// PostgreSQL transaction). A store written over it (`Browse`, `SigningKeys`) is one
/// implementation for both backends.
@_spi(StoreInternals) public protocol SessionSource: Sendable {
    associatedtype Session: StoreSession
    func read<T>(_ body: (Session) throws -> T) throws -> T
    @discardableResult
    func writeSession<T>(_ body: @escaping (Session) throws -> T) throws -> T
}

@_spi(StoreInternals) extension Database: SessionSource {
    @discardableResult
    public func writeSession<T>(_ body: @escaping (SQLiteConnection) throws -> T) throws -> T { try writeAndWait(body) }
}

@_spi(StoreInternals) extension PGPool: SessionSource {
    @discardableResult
    public func writeSession<T>(_ body: @escaping (PGConnection) throws -> T) throws -> T { try transaction(body) }
}
