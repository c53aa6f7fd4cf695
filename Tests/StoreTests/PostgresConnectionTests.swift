import Foundation
import PostgresClient
import SQLValues
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// The libpq connection the PostgreSQL backend builds on, against a real throwaway cluster:
/// bound parameters (never spliced), prepared once, NULLs, SQLSTATEs, and a reconnect after the
/// server was killed and started again.
@Suite(.serialized) struct PostgresConnectionTests {
    @Test func parametersAreBoundAndStatementsPreparedOnce() throws {
        let connection = try PGConnection(url: try PostgresCluster.shared().newDatabase())
        #expect(connection.serverVersion >= 120000)
        try connection.execute("CREATE TABLE links (id text PRIMARY KEY, title text, clicks bigint NOT NULL, share double precision, active boolean)")
        let insert = "INSERT INTO links (id, title, clicks, share, active) VALUES ($1, $2, $3, $4, $5)"
        let hostile = "x'); DROP TABLE links; --"
        #expect(try connection.query(insert, [.text("a"), .text(hostile), .integer(42), .real(0.85), .boolean(true)]).affected == 1)
        #expect(try connection.query(insert, [.text("b"), .null, .integer(-7), .null, .boolean(false)]).affected == 1)
        let rows = try connection.query("SELECT id, title, clicks, share, active FROM links WHERE clicks > $1 ORDER BY id", [.integer(-100)])
        #expect(rows.columns == ["id", "title", "clicks", "share", "active"])
        #expect(rows.rows.count == 2)
        #expect(rows.text(0, 1) == hostile)  // stored as text, the table still there
        #expect(rows.integer(0, 2) == 42 && rows.real(0, 3) == 0.85 && rows.boolean(0, 4) == true)
        #expect(rows.text(1, 1) == nil && rows.integer(1, 2) == -7 && rows.real(1, 3) == nil && rows.boolean(1, 4) == false)
        // Prepared once per connection: the server holds one statement per SQL text.
        let statements = try connection.query("SELECT count(*) FROM pg_prepared_statements")
        #expect(statements.integer(0, 0) == 3)

        let duplicate = #expect(throws: PGError.self) { try connection.query(insert, [.text("a"), .null, .integer(1), .null, .null]) }
        #expect(duplicate?.isUniqueViolation == true)
        let missing = #expect(throws: PGError.self) { try connection.query("SELECT nope FROM links") }
        #expect(missing?.sqlState == "42703")
    }

    /// SQL shared with SQLite keeps its `?` placeholders; they are numbered when prepared, except
    /// inside literals, quoted identifiers and comments.
    @Test func placeholdersAreNumberedOutsideQuotesAndComments() throws {
        #expect(PGPlaceholders.numbered("SELECT a FROM t WHERE b = ? AND c = ?") == "SELECT a FROM t WHERE b = $1 AND c = $2")
        #expect(PGPlaceholders.numbered("SELECT '?', \"a?\" FROM t WHERE b = ?") == "SELECT '?', \"a?\" FROM t WHERE b = $1")
        #expect(PGPlaceholders.numbered("SELECT 1 -- don't ask?\nWHERE x = ?") == "SELECT 1 -- don't ask?\nWHERE x = $1")
        #expect(PGPlaceholders.numbered("SELECT 'it''s ?' WHERE x = ?") == "SELECT 'it''s ?' WHERE x = $1")
        #expect(PGPlaceholders.numbered("WHERE a = ?1 AND (?2 IS NULL OR b = ?2) LIMIT ?10") == "WHERE a = $1 AND ($2 IS NULL OR b = $2) LIMIT $10")
        #expect(PGPlaceholders.numbered("SELECT $1") == "SELECT $1")
        let connection = try PGConnection(url: try PostgresCluster.shared().newDatabase())
        let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xff, 0x0a]
        let echoed = try connection.queryOne("SELECT ?::bytea, ?::bigint + 1, ? AS label", bytes, Int64(41), "it's?") { row in
            (row.blob(0), row.int(1), row.string("label"))
        }
        #expect(echoed?.0 == bytes && echoed?.1 == 42 && echoed?.2 == "it's?")
    }

    @Test func aConnectionComesBackAfterTheServerDoes() throws {
        let cluster = try PostgresCluster()
        let connection = try PGConnection(url: cluster.url)
        try connection.execute("CREATE TABLE t (n integer)")
        #expect(try connection.query("INSERT INTO t VALUES ($1)", [.integer(1)]).affected == 1)
        cluster.kill()
        let lost = #expect(throws: PGError.self) { try connection.query("SELECT count(*) FROM t") }
        #expect(lost?.isConnectionLost == true)
        #expect(throws: PGError.self) { try connection.reconnect() }  // still down
        try cluster.start()
        try connection.reconnect()
        #expect(try connection.query("SELECT count(*) FROM t").integer(0, 0) == 1)

        // Refused at once, with a clear message, when nothing listens.
        cluster.stop()
        let refused = #expect(throws: PGError.self) {
            try PGConnection(url: "postgres://postgres@127.0.0.1:\(cluster.port)/postgres?connect_timeout=2")
        }
        #expect(refused?.message.hasPrefix("cannot connect to PostgreSQL") == true)
    }
}
