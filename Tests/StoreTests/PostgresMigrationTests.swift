import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
import SQLValues
@_spi(StoreInternals) import Store
import StoreContracts
import Synchronization
import TestSupport
import Testing

/// PostgreSQL's schema (`migrations/postgres/`) against a real throwaway cluster: it holds the
/// same tables and columns as SQLite's migrations leave, two nodes migrating at once apply each
/// migration once, and a schema newer than the binary stops the run — on either backend.
@Suite(.serialized) struct PostgresMigrationTests {
    /// Tables that are SQLite's way of feeding the rollups (triggers into pending tables), and
    /// the cursor of SQLite's events read as the outbox's log (migration 0024).
    /// `change_log`: how a SQLite server hears of other processes' changes (PostgreSQL: NOTIFY).
    static let sqliteOnly: Set<String> = ["rollup_pending", "rollup_pending_money", "rollup_pending_tallies", "outbox_cursors", "change_log"]
    /// Each backend's way of feeding the rollups: SQLite's pending tables, PostgreSQL's deltas.
    static let postgresOnly: Set<String> = ["rollup_count_deltas", "rollup_money_deltas", "rollup_tally_deltas"]

    @Test func theSchemaHasSQLitesTablesColumnsAndIndexes() throws {
        let connection = try PGConnection(url: try PostgresCluster.shared().newDatabase())
        #expect(try PGMigrator.migrate(connection) == Migration.postgres.map(\.name))
        #expect(try PGMigrator.migrate(connection).isEmpty)

        let temp = try TemporaryDatabase()
        let sqliteColumns: [String: [String]] = try temp.database.read { sqlite in
            let tables = try sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'") { $0.string(0) }
            var columns: [String: [String]] = [:]
            for table in tables where !Self.sqliteOnly.contains(table) {
                columns[table] = try sqlite.query("SELECT name FROM pragma_table_info(?) ORDER BY cid", table) { $0.string(0) }
            }
            return columns
        }
        let rows = try connection.query(
            """
            SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position
            """)
        var postgresColumns: [String: [String]] = [:]
        for row in rows.rows where !Self.postgresOnly.contains(row[0]!) { postgresColumns[row[0]!, default: []].append(row[1]!) }
        #expect(sqliteColumns.count > 25 && Set(postgresColumns.keys) == Set(sqliteColumns.keys))
        for (table, columns) in sqliteColumns {
            #expect(postgresColumns[table] == columns, "columns of \(table)")
        }

        let sqliteIndexes = try temp.database.read { sqlite in
            try sqlite.query("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") { $0.string(0) }
        }
        let postgresIndexes = Set(try connection.query("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'").rows.map { $0[0]! })
        for index in sqliteIndexes where !index.hasPrefix("rollup_pending") {
            #expect(postgresIndexes.contains(index), "index \(index)")
        }
        // Case-insensitive e-mails, as SQLite's COLLATE NOCASE makes them.
        _ = try connection.query("INSERT INTO projects (id, name, token_hash, created_at, updated_at) VALUES ('p', 'Shop', '\\x01', 0, 0)")
        let user = "INSERT INTO dashboard_users (id, project_id, email, password_hash, role, created_at) VALUES ($1, 'p', $2, 'h', 'viewer', 0)"
        _ = try connection.query(user, [.text("u1"), .text("Ana@Example.com")])
        let again = #expect(throws: PGError.self) { try connection.query(user, [.text("u2"), .text("ana@example.COM")]) }
        #expect(again?.isUniqueViolation == true)
    }

    @Test func twoNodesStartingTogetherApplyEachMigrationOnce() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let slow = Migration(name: "0002_slow.sql", sql: "SELECT pg_sleep(0.5); CREATE TABLE slow_marker (x integer);")
        let migrations = Migration.postgres + [slow]
        let applied = Mutex<[[String]]>([])
        let failures = Mutex<[String]>([])
        let group = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: group) {
                do {
                    let names = try PGMigrator.migrate(url: url, migrations: migrations)
                    applied.withLock { $0.append(names) }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 }.isEmpty)
        let all = applied.withLock { $0 }
        #expect(all.count == 2)
        #expect(all.flatMap { $0 }.sorted() == migrations.map(\.name).sorted())  // each once, by one node or the other
        let connection = try PGConnection(url: url)
        #expect(try PGMigrator.appliedMigrations(connection) == migrations.map(\.name).sorted())
    }

    @Test func aSchemaNewerThanTheBinaryStopsTheMigration() throws {
        let connection = try PGConnection(url: try PostgresCluster.shared().newDatabase())
        try PGMigrator.migrate(connection)
        _ = try connection.query("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_from_a_newer_build.sql', 0)")
        let postgres = #expect(throws: SchemaNewerError.self) { try PGMigrator.migrate(connection) }
        #expect(postgres?.unknown == ["9999_from_a_newer_build.sql"])
        #expect(postgres?.description.contains("newer than this binary") == true)

        let temp = try TemporaryDatabase()
        try temp.database.writeAndWait { try $0.run("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_from_a_newer_build.sql', 0)") }
        let sqlite = #expect(throws: SchemaNewerError.self) { try Database(path: temp.path) }
        #expect(sqlite?.unknown == ["9999_from_a_newer_build.sql"])
    }
}
