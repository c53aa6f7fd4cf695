import SQLValues

/// Reads of one statement sent ahead for several writes of a batch (each install's tier 0, each
/// event's install), made by one statement: the statement runs once per set of values as a
/// `LATERAL` subquery over the values' arrays, each row tagged with its set's place. PostgreSQL
/// sets up a statement's plan on every execution, and tier 0's, with its branches and candidate
/// reads, took most of its time in that: nine reads of it cost ~100 µs each where one statement
/// for the nine cost ~165 µs (`pgbench`, docs/performance.md "PostgreSQL").
struct BatchedReads {
    /// The statement that reads every set of values at once; its first column is the set's place (from 1).
    let sql: String
    /// One array per parameter of the statement, each holding that parameter's value for every set.
    let values: [SQLValue]

    /// The statement reading `sql` for each of `valueSets` (two or more), or nil when it cannot:
    /// `sql` must be a query (`SELECT`, `WITH`, or a parenthesised one) whose parameters are all
    /// `?` (no `$`), and a parameter's values all text or all integers (NULL among them).
    init?(_ sql: String, valueSets: [[SQLValue]]) {
        guard valueSets.count > 1, let count = valueSets.first?.count, count > 0,
            valueSets.allSatisfy({ $0.count == count })
        else { return nil }
        var types: [ElementType] = []
        for position in 0..<count {
            guard let type = ElementType(valueSets.map { $0[position] }) else { return nil }
            types.append(type)
        }
        // Whether the text can be joined is decided once, with its joined text ("" when it cannot).
        let joined = Self.texts.text(for: Key(sql: StatementText(text: sql), types: types)) {
            guard Self.isQuery(sql), !sql.utf8.contains(UInt8(ascii: "$")) else { return "" }
            let arrays = types.enumerated().map { "?::\($1.rawValue)[]" }.joined(separator: ", ")
            let names = (1...count).map { "p\($0)" }.joined(separator: ", ")
            return "SELECT q.place, s.* FROM unnest(\(arrays)) WITH ORDINALITY AS q(\(names), place) CROSS JOIN LATERAL ("
                + PGPlaceholders.numbered(sql, prefix: "q.p") + ") AS s"
        }
        guard !joined.isEmpty else { return nil }
        self.sql = joined
        values = types.indices.map { position in .text(Self.arrayLiteral(valueSets.map { $0[position] })) }
    }

    private static func isQuery(_ sql: String) -> Bool {
        let start = sql.drop { $0 == "(" || $0.isWhitespace }.prefix(6).uppercased()
        return start == "SELECT" || start.hasPrefix("WITH ")
    }

    /// Each set's rows, in the order of the sets, shaped as the statement's own answer.
    static func split(_ answer: PGRows, into count: Int) -> [PGRows] {
        var rows = Array(repeating: [[String?]](), count: count)
        for row in answer.rows {
            guard let place = row[0].flatMap({ Int($0) }), place >= 1, place <= count else { continue }
            rows[place - 1].append(Array(row.dropFirst()))
        }
        let columns = Array(answer.columns.dropFirst())
        return rows.map { PGRows(columns: columns, rows: $0, affected: $0.count) }
    }

    private enum ElementType: String, Hashable, Sendable {
        case text, bigint

        /// The one type of `values`' non-NULL values; nil when they have two, or none.
        init?(_ values: [SQLValue]) {
            var found: ElementType?
            for value in values {
                let type: ElementType
                switch value {
                case .null: continue
                case .text: type = .text
                case .integer: type = .bigint
                case .real, .boolean, .bytes: return nil
                }
                if let found, found != type { return nil }
                found = type
            }
            guard let found else { return nil }
            self = found
        }
    }

    /// An array in PostgreSQL's text form: each element double-quoted, `"` and `\` escaped.
    private static func arrayLiteral(_ values: [SQLValue]) -> String {
        var literal = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { literal += "," }
            guard let text = value.text else {
                literal += "NULL"
                continue
            }
            literal += "\""
            for character in text.unicodeScalars {
                if character == "\"" || character == "\\" { literal.unicodeScalars.append("\\") }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return literal + "}"
    }

    private struct Key: Hashable, Sendable {
        let sql: StatementText
        let types: [ElementType]
    }

    private static let texts = StatementTextCache<Key>()
}
