import Testing

@testable import Attribution

/// The CSV reading fed a piece at a time gives exactly what reading the whole gives, wherever
/// the pieces are cut: inside a quoted field, between doubled quotes, inside the byte order mark.
@Suite struct CSVReaderTests {
    static let table = Array(
        "\u{FEFF}Short link,Deep link (link),Link name\r\nhttps://x/a,https://e/a,\"Spring, \"\"new\"\"\"\r\n\r\nhttps://x/b,https://e/b,\"two\nlines\"\nhttps://x/c,https://e/c,last"
            .utf8)

    func fed(in size: Int, _ bytes: [UInt8]) throws -> [(Int, [String])] {
        var reader = CSVTable.Reader()
        var records: [(Int, [String])] = []
        var start = 0
        while start < bytes.count {
            try reader.feed(bytes[start..<min(bytes.count, start + size)]) { records.append(($0, $1)) }
            start += size
        }
        try reader.finish { records.append(($0, $1)) }
        return records
    }

    @Test func everyCutGivesTheWholeReading() throws {
        let whole = try CSVTable.records(Self.table)
        #expect(whole.count == 4 && whole[1].fields[2] == #"Spring, "new""# && whole[2].fields[2] == "two\nlines" && whole[3].line == 6)
        for size in 1...9 {
            let pieces = try fed(in: size, Self.table)
            #expect(pieces.map(\.0) == whole.map(\.line) && pieces.map(\.1) == whole.map(\.fields), "pieces of \(size)")
        }
    }

    @Test func malformedTablesAreRefusedWhereverTheyAreCut() {
        for bad in ["a,\"b\"c\n", "a,b\"c\n", "a,\"never closed\n"] {
            for size in [1, 2, 100] {
                #expect(throws: CSVTable.Malformed.self, "\(bad) in pieces of \(size)") { _ = try fed(in: size, Array(bad.utf8)) }
            }
        }
    }
}
