import Foundation
import StoreContracts
import Testing

@_spi(StoreInternals) @testable import Store

/// The page-cache wrapper skips a commit's truncation only when no page can be at or above the
/// limit, and passes on the ones that drop pages. Counts are per thread, so each test sees its own.
@Suite struct PageCacheTests {
    private static func randomKey() -> String {
        (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()
    }

    private static func openWithKeys(_ temp: TemporaryDatabase) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: temp.path, mode: .readWrite)
        try connection.execute("CREATE TABLE page_cache_keys (key TEXT NOT NULL)")
        try connection.execute("CREATE INDEX page_cache_keys_by_key ON page_cache_keys(key)")
        return connection
    }

    /// Random index keys split pages in the middle of the index, and B-tree balancing renumbers
    /// pages through a temporary number above 1 GiB: SQLite's cache then believes it may hold
    /// pages past the end and walked its whole hash table at every commit.
    @Test func commitsAfterRandomIndexSplitsSkipTheTruncation() throws {
        let temp = try TemporaryDatabase()
        let connection = try Self.openWithKeys(temp)
        let commits = 40
        let before = SQLiteLibrary.pageCacheTruncations
        for _ in 0..<commits {
            try connection.execute("BEGIN IMMEDIATE")
            for _ in 0..<100 { _ = try connection.run("INSERT INTO page_cache_keys VALUES (?)", Self.randomKey()) }
            try connection.execute("COMMIT")
        }
        let after = SQLiteLibrary.pageCacheTruncations
        #expect(after.passed == before.passed)
        #expect(after.skipped - before.skipped >= UInt64(commits))
        #expect(try connection.queryOne("SELECT count(*) FROM page_cache_keys") { $0.int(0) } == Int64(commits * 100))
        #expect(try connection.queryOne("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }

    /// A rolled-back transaction that grew the file leaves pages past the restored end in the
    /// cache: that truncation must reach SQLite, and what is written next reads back intact.
    @Test func aRolledBackGrowthIsTruncated() throws {
        let temp = try TemporaryDatabase()
        let connection = try Self.openWithKeys(temp)
        for _ in 0..<50 { _ = try connection.run("INSERT INTO page_cache_keys VALUES (?)", Self.randomKey()) }
        let before = SQLiteLibrary.pageCacheTruncations
        try connection.execute("BEGIN IMMEDIATE")
        for _ in 0..<2_000 {
            _ = try connection.run("INSERT INTO page_cache_keys VALUES (?)", String(repeating: Self.randomKey(), count: 8))
        }
        try connection.execute("ROLLBACK")
        #expect(SQLiteLibrary.pageCacheTruncations.passed > before.passed)
        try connection.execute("BEGIN IMMEDIATE")
        for _ in 0..<500 { _ = try connection.run("INSERT INTO page_cache_keys VALUES (?)", Self.randomKey()) }
        try connection.execute("COMMIT")
        #expect(try connection.queryOne("SELECT count(*) FROM page_cache_keys") { $0.int(0) } == 550)
        #expect(try connection.queryOne("SELECT max(length(key)) FROM page_cache_keys") { $0.int(0) } ?? 0 <= 64)
        #expect(try connection.queryOne("PRAGMA integrity_check") { $0.string(0) } == "ok")
    }
}
