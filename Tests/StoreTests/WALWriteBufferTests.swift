import Foundation
import StoreContracts
import Testing

@_spi(StoreInternals) @testable import Store

/// The VFS gathers a commit's WAL frames into one write, and nothing SQLite or another connection
/// reads can tell: commits are readable at once, and spilled frames read back within the
/// transaction that wrote them. Counts are per thread; these tests use connections on their own.
@Suite struct WALWriteBufferTests {
    private static func blob(_ seed: Int, length: Int = 3_000) -> [UInt8] {
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<length).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    private static func openWithRows(_ temp: TemporaryDatabase, synchronous: Database.Synchronous = .normal) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: temp.path, mode: .readWrite)
        try connection.execute("PRAGMA synchronous = \(synchronous.rawValue)")
        try connection.execute("CREATE TABLE wal_rows (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        return connection
    }

    private static func body(_ connection: SQLiteConnection, _ id: Int) throws -> [UInt8]? {
        try connection.queryOne("SELECT body FROM wal_rows WHERE id = ?", id) { $0.blob(0) }
    }

    @Test func aCommitsFramesReachTheFileInOneWrite() throws {
        let temp = try TemporaryDatabase()
        let connection = try Self.openWithRows(temp)
        let before = SQLiteLibrary.walWrites
        try connection.execute("BEGIN IMMEDIATE")
        for id in 1...100 { _ = try connection.run("INSERT INTO wal_rows (id, body) VALUES (?, ?)", id, Self.blob(id)) }
        try connection.execute("COMMIT")
        let after = SQLiteLibrary.walWrites
        // 100 rows of 3,000 bytes fill about 75 pages: a header and a page write for each frame.
        #expect(after.requested - before.requested >= 150)
        #expect(after.issued - before.issued <= 4)  // 300 KiB in writes of at most 112 KiB
        #expect(try Self.body(connection, 100) == Self.blob(100))
    }

    /// With FULL, SQLite also syncs the WAL at each commit, which writes the gathered frames first.
    @Test(arguments: Database.Synchronous.allCases)
    func anotherConnectionReadsEachCommitAtOnce(_ synchronous: Database.Synchronous) throws {
        let temp = try TemporaryDatabase()
        let writer = try Self.openWithRows(temp, synchronous: synchronous)
        let reader = try SQLiteConnection(path: temp.path, mode: .readOnly)
        for id in 1...60 {
            _ = try writer.run("INSERT INTO wal_rows (id, body) VALUES (?, ?)", id, Self.blob(id))
            #expect(try Self.body(reader, id) == Self.blob(id), "row \(id)")
        }
        #expect(try reader.queryOne("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }

    /// With a ten-page cache, a large transaction writes pages to the WAL before it commits and
    /// reads them back from there.
    @Test func aTransactionReadsBackThePagesItSpilled() throws {
        let temp = try TemporaryDatabase()
        let connection = try Self.openWithRows(temp)
        try connection.execute("PRAGMA cache_size = 10")
        try connection.execute("BEGIN IMMEDIATE")
        for id in 1...400 { _ = try connection.run("INSERT INTO wal_rows (id, body) VALUES (?, ?)", id, Self.blob(id)) }
        for id in stride(from: 1, through: 400, by: 37) { #expect(try Self.body(connection, id) == Self.blob(id), "row \(id)") }
        try connection.execute("COMMIT")
        let reader = try SQLiteConnection(path: temp.path, mode: .readOnly)
        #expect(try reader.queryOne("SELECT count(*) FROM wal_rows") { $0.int(0) } == 400)
        #expect(try Self.body(reader, 399) == Self.blob(399))
        #expect(try reader.queryOne("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }

    @Test func aRolledBackSpillLeavesNothingBehind() throws {
        let temp = try TemporaryDatabase()
        let connection = try Self.openWithRows(temp)
        try connection.execute("PRAGMA cache_size = 10")
        for id in 1...20 { _ = try connection.run("INSERT INTO wal_rows (id, body) VALUES (?, ?)", id, Self.blob(id)) }
        try connection.execute("BEGIN IMMEDIATE")
        for id in 21...400 { _ = try connection.run("INSERT INTO wal_rows (id, body) VALUES (?, ?)", id, Self.blob(-id)) }
        try connection.execute("ROLLBACK")
        for id in 21...40 { _ = try connection.run("INSERT INTO wal_rows (id, body) VALUES (?, ?)", id, Self.blob(id)) }
        let reader = try SQLiteConnection(path: temp.path, mode: .readOnly)
        #expect(try reader.queryOne("SELECT count(*) FROM wal_rows") { $0.int(0) } == 40)
        for id in [1, 20, 21, 40] { #expect(try Self.body(reader, id) == Self.blob(id), "row \(id)") }
        #expect(try reader.queryOne("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }
}
