import SQLValues

/// Writes sent unanswered in a row with one `INSERT … VALUES (?, …)` text, sent as one statement
/// of many rows (`PGConnection.runUnanswered`): PostgreSQL sets a statement up on every execution
/// (the table's nine indexes opened, its triggers found), once for the rows together.
enum MultiRowInsert {
    /// The most rows one statement takes; a run is sent in powers of two up to it, so that a
    /// connection prepares a few texts per statement, not one per count.
    static let maxRows = 64

    /// Whether `sql` is an `INSERT` whose only values are one row of `?` (nothing after it).
    static func accepts(_ sql: String) -> Bool { rowStart(in: sql) != nil }

    /// How many of `count` waiting rows the next statement takes.
    static func rows(of count: Int) -> Int {
        var rows = 1
        while rows * 2 <= min(count, maxRows) { rows *= 2 }
        return rows
    }

    /// `sql` with its row of `?` repeated `rows` times.
    static func text(_ sql: String, rows: Int) -> String {
        texts.text(for: Key(sql: StatementText(text: sql), rows: rows)) {
            guard let start = rowStart(in: sql) else { return sql }
            return sql[..<start] + Array(repeating: sql[start...], count: rows).joined(separator: ", ")
        }
    }

    /// Where the text's closing `(?, ?, …)` starts, when it is an INSERT's VALUES.
    private static func rowStart(in sql: String) -> String.Index? {
        let bytes = sql.utf8
        guard bytes.starts(with: "INSERT ".utf8), bytes.last == UInt8(ascii: ")"),
            let open = bytes.lastIndex(of: UInt8(ascii: "("))
        else { return nil }
        let row = bytes[open...]
        guard
            row.dropFirst().dropLast().allSatisfy({
                $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n")
            }),
            row.contains(UInt8(ascii: "?")),
            bytes[..<open].reversed().drop(while: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\n") }).starts(with: "SEULAV".utf8)
        else { return nil }
        return open
    }

    private struct Key: Hashable, Sendable {
        let sql: StatementText
        let rows: Int
    }

    private static let texts = StatementTextCache<Key>()
}
