internal import CSQLite
import Foundation
public import SQLValues
import StoreContracts

/// A `SQLValue` binds to SQLite too, so that a statement's values built once (`[SQLValue]`) serve
/// both backends where the write is not a hot path (admin writes: projects, links, templates).
@_spi(StoreInternals) extension SQLValue: SQLiteValue {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        switch self {
        case .null: Optional<Int64>.none.bind(to: statement, at: index)
        case .text(let value): value.bind(to: statement, at: index)
        case .integer(let value): value.bind(to: statement, at: index)
        case .real(let value): value.bind(to: statement, at: index)
        case .boolean(let value): value.bind(to: statement, at: index)
        case .bytes(let value): value.bind(to: statement, at: index)
        }
    }
}

extension SQLiteConnection {
    /// Runs a statement with `values` bound in order; the rows it changed.
    @discardableResult
    public func run(_ sql: String, values: [SQLValue]) throws -> Int {
        let statement = try bound(sql, values)
        defer { statement.reset() }
        try statement.runToCompletion()
        return changes
    }

    /// The statement for `sql` with `values` bound in order.
    func bound(_ sql: String, _ values: [SQLValue]) throws -> Statement {
        let statement = try statement(sql)
        guard Int(sqlite3_bind_parameter_count(statement.pointer)) == values.count else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "\(values.count) values for \(sqlite3_bind_parameter_count(statement.pointer)) parameters", sql: sql)
        }
        for (index, value) in values.enumerated() {
            let result = value.bind(to: statement.pointer, at: Int32(index + 1))
            guard result == SQLITE_OK else { throw lastError(sql: sql) }
        }
        return statement
    }
}

/// A statement's values, for SQL both backends run (`StoreSession`).
func sqlValues(_ values: any SQLBindable...) -> [SQLValue] { values.map(\.sqlValue) }

/// Whether either backend refused a write for a taken unique key.
func isUniqueViolation(_ error: any Error) -> Bool {
    (error as? any DatabaseLibraryError)?.isUniqueViolation == true
}

/// Whether either backend refused a write for a taken unique key whose name or columns mention
/// `column` (SQLite: `UNIQUE constraint failed: links.short_code`; PostgreSQL: the index's name).
func isUniqueViolation(_ error: any Error, of column: String) -> Bool {
    guard let error = error as? any DatabaseLibraryError else { return false }
    return error.isUniqueViolation && error.message.contains(column)
}
