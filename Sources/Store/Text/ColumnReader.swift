/// A result row read by column name (or position), as SQLite's `Row` and PostgreSQL's `PGRow` both read: row
/// mappings written against it (a project, a link) serve both backends.
protocol ColumnReader {
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
}

extension Row: ColumnReader {}
extension PGRow: ColumnReader {}
