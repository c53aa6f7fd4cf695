import StoreContracts
import Testing

@_spi(StoreInternals) @testable import Store

/// Values bound as a parameter pack reach SQLite with their own storage class, in order.
@Suite struct StatementBindingTests {
    @Test func eachKindOfValueBindsWithItsType() throws {
        let temp = try TemporaryDatabase()
        let absent: String? = nil
        let present: Double? = 2.5
        let row = try temp.database.read { connection in
            try connection.queryOne(
                "SELECT typeof(?1), ?1, typeof(?2), ?2, typeof(?3), ?3, typeof(?4), ?4, typeof(?5), typeof(?6), ?6, typeof(?7), hex(?7), typeof(?8), ?8",
                Int64(-7), 42, 1.25, true, absent, present, [UInt8]([0, 0xFF]), ""
            ) { row in
                (0..<15).map { row.isNull(Int32($0)) ? "NULL" : row.string(Int32($0)) }
            }
        }
        #expect(row == ["integer", "-7", "integer", "42", "real", "1.25", "integer", "1", "null", "real", "2.5", "blob", "00FF", "text", ""])
    }

    @Test func textReadsBackWholeWithNULsAndNonASCII() throws {
        let temp = try TemporaryDatabase()
        let values = ["\u{0}", "a\u{0}b", "é漢😀\u{0}", ""]
        try temp.database.writeAndWait { connection in
            try connection.run("CREATE TABLE texts (value TEXT UNIQUE)")
            for value in values { try connection.run("INSERT INTO texts (value) VALUES (?)", value) }
        }
        let read = try temp.database.read { connection in
            try values.map { value in
                (try connection.queryOne("SELECT value, length(CAST(value AS BLOB)) FROM texts WHERE value = ?", value) {
                    ($0.string(0), $0.int(1))
                })
            }
        }
        #expect(read.map { $0?.0 } == values)
        #expect(read.map { $0?.1 } == values.map { Int64($0.utf8.count) })
    }

    @Test func aWrongNumberOfValuesIsAnErrorNamingBoth() throws {
        let temp = try TemporaryDatabase()
        let messages = try temp.database.read { connection in
            [
                try message { try connection.queryOne("SELECT ?, ?", 1) { $0.int(0) } },
                try message { try connection.queryOne("SELECT ?, ?", 1, 2, 3) { $0.int(0) } },
            ]
        }
        #expect(messages == ["statement takes 2 values, got 1", "statement takes 2 values, got 3"])
    }

    private func message(_ body: () throws -> Int64?) throws -> String? {
        do { _ = try body() } catch let error as SQLiteError { return error.message }
        return nil
    }
}
