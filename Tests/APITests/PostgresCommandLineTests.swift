import Foundation
import Testing
import TestSupport

/// `--database`, `ATTRIBUTIOND_DATABASE_URL` and `database_url` on the command line, against a
/// throwaway PostgreSQL cluster: `migrate` applies PostgreSQL's schema once; bad values and an
/// unreachable database end the command with a message that names the problem (and no password).
@Suite(.serialized) struct PostgresCommandLineTests {
    @Test func migrateAppliesPostgreSQLsSchemaOnceFromAnyOfTheThreeSources() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let first = try run(["migrate", "--database", url])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "applied 0001_schema.sql\n")
        #expect(first.stderr.isEmpty)  // no NOTICE chatter from the server
        let again = try run(["migrate"], environment: ["ATTRIBUTIOND_DATABASE_URL": url])
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("PostgreSQL: up to date"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-pgconfig-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("attributiond.json")
        try Data(#"{"database_url": "\#(url)"}"#.utf8).write(to: config)
        let fromFile = try run(["migrate", "--config", config.path])
        #expect(fromFile.status == 0 && fromFile.stdout.hasPrefix("PostgreSQL: up to date"))
        // --db after all of them names a SQLite file again.
        let sqlite = try run(["migrate", "--config", config.path, "--db", folder.appendingPathComponent("db.sqlite").path])
        #expect(sqlite.status == 0 && sqlite.stdout.contains("applied 0001_initial.sql"))

        // Serving from PostgreSQL is not in this build: said so, not attempted.
        let serve = try run(["serve", "--port", "0", "--database", url])
        #expect(serve.status == 1)
        #expect(serve.stderr.contains("SQLite only"))
    }

    @Test func badURLsAndAnUnreachableDatabaseFailWithAMessage() throws {
        let scheme = try run(["migrate", "--database", "mysql://root@127.0.0.1/db"])
        #expect(scheme.status == 2)
        #expect(scheme.stderr.contains("--database") && scheme.stderr.contains("'mysql' URL"))
        let hostless = try run(["migrate"], environment: ["ATTRIBUTIOND_DATABASE_URL": "postgres://"])
        #expect(hostless.status == 2 && hostless.stderr.contains("ATTRIBUTIOND_DATABASE_URL"))

        let cluster = try PostgresCluster()
        cluster.stop()  // a free port with nothing listening
        let down = try run(["migrate", "--database", "postgres://postgres:s3cret-password@127.0.0.1:\(cluster.port)/postgres?connect_timeout=2"])
        #expect(down.status == 1)
        #expect(down.stderr.contains("cannot connect to PostgreSQL"))
        #expect(!down.stderr.contains("s3cret-password"))
    }
}
