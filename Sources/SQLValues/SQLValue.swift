/// A value bound to a statement's parameter, as both backends bind it: SQLite through its own
/// calls, PostgreSQL in its text format. Values built once (`[SQLValue]`) serve SQL that both run.
public enum SQLValue: Sendable, Hashable {
    case null
    case text(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    /// BLOB on SQLite; BYTEA on PostgreSQL, sent in its hex text form (`\x0a1b…`).
    case bytes([UInt8])
}

/// A Swift value that binds as a `SQLValue`.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .boolean(self) } }
extension Array: SQLBindable where Element == UInt8 { public var sqlValue: SQLValue { .bytes(self) } }
extension Optional: SQLBindable where Wrapped: SQLBindable { public var sqlValue: SQLValue { self?.sqlValue ?? .null } }
extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
