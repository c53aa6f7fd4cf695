internal import CSQLite
public import StoreContracts

/// A failed SQLite call: the result code, SQLite's own message, and the statement it came from.
public struct SQLiteError: DatabaseLibraryError, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// A UNIQUE or PRIMARY KEY constraint refused a row.
    public var isUniqueViolation: Bool {
        // SQLITE_CONSTRAINT_UNIQUE (2067) and _PRIMARYKEY (1555): function-like macros Swift cannot import.
        code == 2067 || code == 1555
    }

    /// The disk is full (SQLITE_FULL, any extended code): no write succeeds until space is freed.
    public var isStorageFull: Bool { code & 0xFF == 13 }

    public var description: String {
        if let sql { return "SQLite error \(code): \(message) (in: \(sql.prefix(120)))" }
        return "SQLite error \(code): \(message)"
    }
}
