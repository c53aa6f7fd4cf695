import Dispatch
import Foundation
@_spi(StoreInternals) import PostgresStore
import StoreContracts
import Synchronization
import Testing

@_spi(StoreInternals) @testable import Store

@Suite struct MigrationTests {
    @Test func embeddedMigrationsAreExactlyTheFilesOfMigrationsFolder() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(Migration.bundled.map(\.name) == files)
        for migration in Migration.bundled {
            let text = try String(contentsOf: folder.appendingPathComponent(migration.name), encoding: .utf8)
            #expect(migration.sql == text, "\(migration.name)")
        }
        let postgres = folder.appendingPathComponent("postgres")
        let postgresFiles = try FileManager.default.contentsOfDirectory(atPath: postgres.path).filter { $0.hasSuffix(".sql") }.sorted()
        #expect(!postgresFiles.isEmpty && Migration.postgres.map(\.name) == postgresFiles)
        for migration in Migration.postgres {
            #expect(migration.sql == (try String(contentsOf: postgres.appendingPathComponent(migration.name), encoding: .utf8)), "\(migration.name)")
        }
    }

    @Test func migratesFromEmptyAndRerunningIsANoOp() throws {
        let temp = try TemporaryDatabase()
        let tables = try temp.database.read { connection in
            try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(0) }
        }
        for table in [
            "projects", "api_keys", "templates", "links", "clicks", "installs", "users", "events", "payments", "skan_state", "schema_migrations",
        ] {
            #expect(tables.contains(table), "\(table)")
        }
        let again = try temp.database.writer.barrier { connection in try Migrator.migrate(connection) }
        #expect(again.isEmpty)
        let recorded = try temp.database.read { try Migrator.appliedMigrations($0) }
        #expect(recorded == Migration.bundled.map(\.name))
    }

    @Test func aBrokenMigrationRollsBackWholeAndNamesTheFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-broken-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let good = Migration(name: "0001_good.sql", sql: "CREATE TABLE a (x INTEGER);")
        let broken = Migration(name: "0002_broken.sql", sql: "CREATE TABLE b (y INTEGER); INSERT INTO nowhere VALUES (1);")
        #expect {
            _ = try Database(path: path, migrations: [good, broken])
        } throws: { error in
            let error = error as? MigrationError
            return error?.migration == "0002_broken.sql" && error?.underlying.message.contains("nowhere") == true
        }
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.string(0) }
        #expect(tables.contains("a"))
        #expect(!tables.contains("b"))  // the failed file left nothing behind
        #expect(try Migrator.appliedMigrations(connection) == ["0001_good.sql"])
    }

    /// A table rebuilt the way SQLite documents (new table, copy, drop, rename) keeps its
    /// children: foreign keys are off while migrations run, so the drop cascades nowhere. A
    /// migration that leaves a child without its parent fails whole, naming the table.
    @Test func migrationsRunWithForeignKeysOffAndAreCheckedBeforeTheirCommit() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-fk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let tables = Migration(
            name: "0001_tables.sql",
            sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent(id) ON DELETE CASCADE);
                INSERT INTO parent VALUES (1, 'a'); INSERT INTO child VALUES (10, 1);
                """)
        let rebuilt = Migration(
            name: "0002_rebuild_parent.sql",
            sql: """
                CREATE TABLE parent_new (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '');
                INSERT INTO parent_new SELECT id, coalesce(name, '') FROM parent;
                DROP TABLE parent;
                ALTER TABLE parent_new RENAME TO parent;
                """)
        _ = try Database(path: path, migrations: [tables, rebuilt])
        let check = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try check.queryOne("SELECT count(*) FROM child") { $0.int(0) } == 1, "the rebuild cascaded into the children")

        let orphan = Migration(name: "0003_orphan.sql", sql: "INSERT INTO child VALUES (11, 99);")
        #expect {
            _ = try Database(path: path, migrations: [tables, rebuilt, orphan])
        } throws: { error in
            let error = error as? MigrationError
            return error?.migration == "0003_orphan.sql" && error?.underlying.message.contains("child row") == true
        }
        #expect(try check.queryOne("SELECT count(*) FROM child") { $0.int(0) } == 1, "the failed migration left nothing behind")
        // Foreign keys are on again for the connections that write.
        let database = try Database(path: path, migrations: [tables, rebuilt])
        #expect(try database.writer.barrier { try $0.queryOne("PRAGMA foreign_keys") { $0.int(0) } } == 1)
    }

    /// `0011` widens a CHECK in place: a database holding installs, events and a claimed click
    /// keeps every row, and a connection opened before the migration refuses nothing after it.
    @Test func widenedInstallsCheckKeepsEveryRowAndAcceptsWarpLink() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-0011-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let before = Migration.bundled.filter { $0.name < "0011" }
        _ = try Database(path: path, migrations: before)
        let early = try SQLiteConnection(path: path, mode: .readWrite)
        try early.execute(
            """
            INSERT INTO projects (id, name, token_hash, created_at, updated_at) VALUES ('p', 'Shop', x'00', 0, 0);
            INSERT INTO installs (id, project_id, api, created_at, last_seen_at) VALUES ('i', 'p', 'linkforty', 0, 0);
            INSERT INTO events (id, project_id, install_id, name, occurred_at, received_at) VALUES ('e', 'p', 'i', 'open', 0, 0);
            """)
        #expect(throws: SQLiteError.self) {
            try early.execute("INSERT INTO installs (id, project_id, api, created_at, last_seen_at) VALUES ('w0', 'p', 'warplink', 0, 0)")
        }

        let database = try Database(path: path)
        try database.writeAndWait {
            try $0.execute("INSERT INTO installs (id, project_id, api, created_at, last_seen_at) VALUES ('w', 'p', 'warplink', 0, 0)")
        }
        try early.execute("INSERT INTO installs (id, project_id, api, created_at, last_seen_at) VALUES ('w2', 'p', 'warplink', 0, 0)")
        #expect(throws: SQLiteError.self) {
            try early.execute("INSERT INTO installs (id, project_id, api, created_at, last_seen_at) VALUES ('x', 'p', 'other', 0, 0)")
        }
        #expect(try database.read { try $0.queryOne("SELECT count(*) FROM installs") { $0.int(0) } } == 3)
        #expect(try database.read { try $0.queryOne("SELECT count(*) FROM events") { $0.int(0) } } == 1)
        #expect(try database.read { try $0.queryOne("PRAGMA integrity_check") { $0.string(0) } } == "ok")
    }

    /// `0042` drops the counting triggers: what they left pending (a shell's writes) is added up,
    /// and installs with an event with revenue, which now pay, are added to the paying ones; the
    /// rollups then equal a recount of the rows.
    @Test func theCountingMigrationKeepsTheRollupsEqualToARecount() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-0042-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        do {
            let database = try Database(path: path, migrations: Migration.bundled.filter { $0.name < "0042" })
            try database.writeAndWait { try RollupTests.populate($0, seed: 6, mutate: false, recount: false) }
        }
        let shell = try SQLiteConnection(path: path, mode: .readWrite)
        try shell.execute("PRAGMA foreign_keys = ON")
        try shell.execute("INSERT INTO clicks (click_id, project_id, link_id, created_at) VALUES ('shell', 'p', 'l1', \(RollupTests.start))")
        // (This binary's writer hands the old triggers nothing: all of `populate` waits there too.)
        #expect(try shell.queryOne("SELECT count(*) FROM rollup_pending") { $0.int(0) } ?? 0 > 1)
        let newlyPaying = try shell.queryOne(
            """
            SELECT count(*) FROM installs i WHERE NOT EXISTS (SELECT 1 FROM payments p WHERE p.install_id = i.id AND p.removed_at IS NULL)
            AND EXISTS (SELECT 1 FROM events e WHERE e.install_id = i.id AND e.revenue IS NOT NULL)
            """
        ) { $0.int(0) }
        #expect((newlyPaying ?? 0) > 0)
        let paidBefore = try shell.queryOne(
            "SELECT (SELECT coalesce(sum(paying_installs), 0) FROM rollup_link_hours) + (SELECT coalesce(sum(paying_installs), 0) FROM rollup_pending)"
        ) { $0.int(0) }
        let database = try Database(path: path)
        #expect(
            try database.read { try $0.queryOne("SELECT sum(paying_installs) FROM rollup_link_hours") { $0.int(0) } } == paidBefore! + newlyPaying!)
        #expect(try database.read { try $0.queryOne("SELECT sum(clicks) FROM rollup_link_hours WHERE link_id = 'l1'") { $0.int(0) } } != nil)
        let check = try SQLiteStore(database: database).rollups.check(projectID: nil, sinceHour: Int64.min / 2, limit: 5)
        #expect(check.differing == 0, "\(check.lines)")
    }

    @Test func databaseIsInWALModeWithForeignKeys() throws {
        let temp = try TemporaryDatabase()
        let mode = try temp.database.read { try $0.queryOne("PRAGMA journal_mode") { $0.string(0) } }
        #expect(mode == "wal")
        let foreignKeys = try temp.database.writer.barrier { try $0.queryOne("PRAGMA foreign_keys") { $0.int(0) } }
        #expect(foreignKeys == 1)
    }
}

@Suite struct ConcurrentMigrationTests {
    @Test func manyConnectionsMigratingTheSameFileAtOnceAllSucceed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            do {
                let connection = try SQLiteConnection(path: path, mode: .readWrite)
                try connection.enableWAL()
                try Migrator.migrate(connection)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let connection = try SQLiteConnection(path: path, mode: .readOnly)
        #expect(try Migrator.appliedMigrations(connection) == Migration.bundled.map(\.name))
    }

    @Test func everyConnectionTakesTheConfiguredCacheAndMap() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("memory-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try Database(path: folder.appendingPathComponent("db.sqlite").path, memory: SQLiteMemory(cacheMiB: 4, mmapMiB: 0))
        let pragmas = { (connection: SQLiteConnection) in
            try (connection.queryOne("PRAGMA cache_size") { $0.int(0) }, connection.queryOne("PRAGMA mmap_size") { $0.int(0) })
        }
        let writer = try database.writer.barrier(pragmas)
        #expect(writer.0 == -4096 && writer.1 == 0)
        let reader = try database.read(pragmas)
        #expect(reader.0 == -4096 && reader.1 == 0)
    }
}
