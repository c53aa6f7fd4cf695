public import SQLValues

/// SQL written with SQLite's `?` placeholders, numbered for PostgreSQL (`$1`, `$2`, …) when a
/// statement is first prepared on a connection, so that SQL shared between the backends reads
/// the same. A `?` inside a quoted literal or identifier is left alone.
public enum PGPlaceholders {
    /// `?` becomes the next number; `?NNN`, which names its parameter as SQLite reads it, `$NNN`.
    /// With another `prefix`, the numbers follow it instead of `$` (`q.p1`: a column named for
    /// the parameter).
    public static func numbered(_ sql: String, prefix: String = "$") -> String {
        var output = ""
        var number = 0
        var quote: Character?
        var inComment = false
        var previous: Character = " "
        output.reserveCapacity(sql.utf8.count + 16)
        var characters = Array(sql)[...]
        while let character = characters.popFirst() {
            defer { previous = character }
            if inComment {  // a `--` comment may hold an apostrophe ("don't")
                if character == "\n" { inComment = false }
                output.append(character)
            } else if quote == nil, character == "-", previous == "-" {
                inComment = true
                output.append(character)
            } else if let open = quote {
                if character == open { quote = nil }
                output.append(character)
            } else if character == "'" || character == "\"" {
                quote = character
                output.append(character)
            } else if character == "?" {
                output += prefix
                if let first = characters.first, first.isASCII, first.isNumber {
                    while let digit = characters.first, digit.isASCII, digit.isNumber { output.append(characters.removeFirst()) }
                } else {
                    number += 1
                    output += String(number)
                }
            } else {
                output.append(character)
            }
        }
        return output
    }
}

/// A Swift value a PostgreSQL statement can take as a parameter.
/// One row of a result, read by column index or name with the accessors SQLite's `Row` has, so
/// that row mappings read alike on both backends.
public struct PGRow {
    let rows: PGRows
    let index: Int

    package init(rows: PGRows, index: Int) {
        self.rows = rows
        self.index = index
    }

    private func column(_ name: String) -> Int32 {
        guard let column = rows.columns.firstIndex(of: name) else { preconditionFailure("no column \(name) in the result") }
        return Int32(column)
    }
    private func text(_ column: Int32) -> String? { rows.rows[index][Int(column)] }

    public func isNull(_ column: Int32) -> Bool { text(column) == nil }
    public func string(_ column: Int32) -> String { text(column) ?? "" }
    public func optionalString(_ column: Int32) -> String? { text(column) }
    /// A boolean reads as 1 or 0, as SQLite stores it.
    public func int(_ column: Int32) -> Int64 { optionalInt(column) ?? 0 }
    public func optionalInt(_ column: Int32) -> Int64? {
        guard let text = text(column) else { return nil }
        if let value = Int64(text) { return value }
        return text == "t" ? 1 : text == "f" ? 0 : nil
    }
    public func double(_ column: Int32) -> Double { text(column).flatMap { Double($0) } ?? 0 }
    public func optionalDouble(_ column: Int32) -> Double? { text(column).flatMap { Double($0) } }
    public func bool(_ column: Int32) -> Bool { text(column) == "t" }
    /// BYTEA in its hex text form.
    public func blob(_ column: Int32) -> [UInt8] {
        guard let text = text(column), text.hasPrefix("\\x") else { return [] }
        var bytes: [UInt8] = []
        var high: UInt8?
        bytes.reserveCapacity((text.utf8.count - 2) / 2)
        for character in text.utf8.dropFirst(2) {
            let nibble: UInt8 = character <= 57 ? character - 48 : (character | 0x20) - 87
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    public func string(_ name: String) -> String { string(column(name)) }
    public func optionalString(_ name: String) -> String? { optionalString(column(name)) }
    public func int(_ name: String) -> Int64 { int(column(name)) }
    public func optionalInt(_ name: String) -> Int64? { optionalInt(column(name)) }
    public func double(_ name: String) -> Double { double(column(name)) }
    public func optionalDouble(_ name: String) -> Double? { optionalDouble(column(name)) }
    public func bool(_ name: String) -> Bool { bool(column(name)) }
    public func blob(_ name: String) -> [UInt8] { blob(column(name)) }
}

extension PGConnection {
    /// Runs a statement (`?` placeholders) with `values` bound; the rows it changed.
    @discardableResult
    public func run<each Value: SQLBindable>(_ sql: String, _ values: repeat each Value) throws(PGError) -> Int {
        try query(sql, Self.array(repeat each values)).affected
    }

    public func query<T, each Value: SQLBindable>(_ sql: String, _ values: repeat each Value, map: (PGRow) throws -> T) throws -> [T] {
        let rows = try query(sql, Self.array(repeat each values))
        return try (0..<rows.rows.count).map { try map(PGRow(rows: rows, index: $0)) }
    }

    /// `StoreSession.run(_:orUnanswered:_:)`.
    @discardableResult
    public func run<each Value: SQLBindable>(_ sql: String, orUnanswered unanswered: String, _ values: repeat each Value) throws(PGError) -> Int {
        guard defersWrites else { return try query(sql, Self.array(repeat each values)).affected }
        try runUnanswered(unanswered, Self.array(repeat each values))
        return 1
    }

    /// `StoreSession.runUnanswered(_:_:)`.
    public func runUnanswered<each Value: SQLBindable>(_ sql: String, _ values: repeat each Value) throws(PGError) {
        try runUnanswered(sql, Self.array(repeat each values))
    }

    public func queryOne<T, each Value: SQLBindable>(_ sql: String, _ values: repeat each Value, map: (PGRow) throws -> T) throws -> T? {
        let rows = try query(sql, Self.array(repeat each values))
        return try rows.rows.isEmpty ? nil : map(PGRow(rows: rows, index: 0))
    }

    private static func array<each Value: SQLBindable>(_ values: repeat each Value) -> [SQLValue] {
        var array: [SQLValue] = []
        repeat array.append((each values).sqlValue)
        return array
    }
}
