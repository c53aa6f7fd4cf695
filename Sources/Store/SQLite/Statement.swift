internal import CSQLite
import Foundation
import StoreContracts

/// A prepared statement, owned and cached by its connection.
@_spi(StoreInternals) public final class Statement {
    package let pointer: OpaquePointer
    unowned let connection: SQLiteConnection
    let sql: String

    init(_ pointer: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.pointer = pointer
        self.connection = connection
        self.sql = sql
    }

    /// The result's columns by name, read from SQLite once per prepared statement (statements are
    /// cached per connection, so once per query text).
    lazy var columnIndexes: [String: Int32] = {
        var indexes: [String: Int32] = [:]
        for column in 0..<sqlite3_column_count(pointer) {
            if let name = sqlite3_column_name(pointer, column) { indexes[String(cString: name)] = column }
        }
        return indexes
    }()

    func finalize() { sqlite3_finalize(pointer) }

    package func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }

    /// Binds each value to its parameter, in order. The values are a parameter pack, not an array
    /// of existentials, so no array of boxed values is built and destroyed per statement.
    func bind<each Value: SQLiteValue>(_ values: repeat each Value) throws(SQLiteError) {
        var count: Int32 = 0
        for _ in repeat each values { count += 1 }
        let expected = sqlite3_bind_parameter_count(pointer)
        guard count == expected else {
            throw SQLiteError(code: SQLITE_RANGE, message: "statement takes \(expected) values, got \(count)", sql: sql)
        }
        var index: Int32 = 0
        for value in repeat each values {
            index += 1
            guard value.bind(to: pointer, at: index) == SQLITE_OK else { throw connection.lastError(sql: sql) }
        }
    }

    /// Advances one row: true when a row is available, false when done.
    package func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(pointer) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.lastError(sql: sql)
            sqlite3_reset(pointer)
            throw error
        }
    }

    func runToCompletion() throws(SQLiteError) {
        while try step() {}
        sqlite3_reset(pointer)
    }

    /// Binds `values` and runs the statement to its end (one held by its caller, not looked up).
    func run<each Value: SQLiteValue>(_ values: repeat each Value) throws(SQLiteError) {
        reset()
        try bind(repeat each values)
        try runToCompletion()
    }
}

/// The current row of a stepping statement, read by column index.
@_spi(StoreInternals) public struct Row {
    let statement: Statement

    package init(statement: Statement) { self.statement = statement }

    /// The position of the result column `name`: records decode by name, in one place each, so
    /// that a query selecting more or other columns cannot shift what a position means.
    public func column(_ name: String) -> Int32 {
        guard let column = statement.columnIndexes[name] else { preconditionFailure("no column '\(name)' in: \(statement.sql)") }
        return column
    }

    public func int(_ name: String) -> Int64 { int(column(name)) }
    public func optionalInt(_ name: String) -> Int64? { optionalInt(column(name)) }
    public func double(_ name: String) -> Double { double(column(name)) }
    public func optionalDouble(_ name: String) -> Double? { optionalDouble(column(name)) }
    public func bool(_ name: String) -> Bool { bool(column(name)) }
    public func string(_ name: String) -> String { string(column(name)) }
    public func optionalString(_ name: String) -> String? { optionalString(column(name)) }
    public func blob(_ name: String) -> [UInt8] { blob(column(name)) }

    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement.pointer, column) == SQLITE_NULL }

    public func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement.pointer, column) }

    public func optionalInt(_ column: Int32) -> Int64? { isNull(column) ? nil : int(column) }

    public func double(_ column: Int32) -> Double { sqlite3_column_double(statement.pointer, column) }

    public func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    public func bool(_ column: Int32) -> Bool { int(column) != 0 }

    /// Read by its length, as `String.bind` stores it: a NUL inside a value is part of it. Read as a
    /// C string, `"a\0b"` came back as `"a"`, so a stored id no longer matched itself.
    public func string(_ column: Int32) -> String {
        // sqlite3_column_bytes after sqlite3_column_text: the length of the UTF-8 text just read.
        guard let text = sqlite3_column_text(statement.pointer, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement.pointer, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    public func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }

    public func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement.pointer, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement.pointer, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}

/// A Swift value that binds to a statement parameter.
@_spi(StoreInternals) public protocol SQLiteValue {
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

@_spi(StoreInternals) extension Optional: SQLiteValue where Wrapped: SQLiteValue {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .some(let value): value.bind(to: statement, at: index)
        case .none: sqlite3_bind_null(statement, index)
        }
    }
}

@_spi(StoreInternals) extension Int64: SQLiteValue {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, self) }
}

@_spi(StoreInternals) extension Int: SQLiteValue {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, Int64(self)) }
}

@_spi(StoreInternals) extension Double: SQLiteValue {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_double(statement, index, self) }
}

@_spi(StoreInternals) extension Bool: SQLiteValue {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 { sqlite3_bind_int64(statement, index, self ? 1 : 0) }
}

@_spi(StoreInternals) extension String: SQLiteValue {
    /// The UTF-8 bytes where they are, with their length: passing the String as a C string instead
    /// made a NUL-terminated copy on the heap and had SQLite measure it (a few % of the writer).
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        var text = self
        return text.withUTF8 { bytes in
            // A null pointer would bind NULL: an empty string binds the empty literal's bytes.
            let start = UnsafeRawPointer(bytes.baseAddress ?? emptyText.utf8Start).assumingMemoryBound(to: CChar.self)
            return sqlite3_bind_text(statement, index, start, Int32(bytes.count), attributiond_sqlite_transient())
        }
    }
}

private let emptyText: StaticString = ""

@_spi(StoreInternals) extension Array: SQLiteValue where Element == UInt8 {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), attributiond_sqlite_transient()) }
    }
}
