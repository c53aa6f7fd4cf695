import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// `--database`, `ATTRIBUTIOND_DATABASE_URL` and `database_url` on the command line, against a
/// throwaway PostgreSQL cluster: `migrate` applies PostgreSQL's schema once; bad values and an
/// unreachable database end the command with a message that names the problem (and no password).
@Suite(.serialized) struct PostgresCommandLineTests {
    @Test func migrateAppliesPostgreSQLsSchemaOnceFromAnyOfTheThreeSources() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let first = try run(["migrate", "--database", url])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == Migration.postgres.map { "applied \($0.name)\n" }.joined())
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
        // --db beside a PostgreSQL database_url would silently win: refused, naming both.
        let sqlite = try run(["migrate", "--config", config.path, "--db", folder.appendingPathComponent("db.sqlite").path])
        #expect(sqlite.status == 2 && sqlite.stderr.contains("--db") && sqlite.stderr.contains("database_url"), "\(sqlite.stderr)")
    }

    /// A deployment started on SQLite moves: projects and links made with the CLI are copied,
    /// counted on both sides, and a second run (a resumed one) copies nothing twice.
    @Test func migrateDataCopiesASQLiteDeploymentAndCanRunAgain() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-move-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", sqlite]).status == 0)
        let project = try run(["project", "create", "--db", sqlite, "--name", "Shop", "--json"])
        #expect(project.status == 0, "\(project.stderr)")
        let projectID = try #require(project.stdout.firstMatch(of: /"id":"([^"]+)"/)?.1)
        for code in ["one", "two", "three"] {
            let link = try run(["link", "create", "--db", sqlite, "--project", String(projectID), "--code", code])
            #expect(link.status == 0, "\(link.stderr)")
        }
        let url = try PostgresCluster.shared().newDatabase()
        let first = try run(["migrate-data", "--from", sqlite, "--to", url, "--batch", "2"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("links: sqlite 3, postgres 3") && first.stdout.contains("projects: sqlite 1, postgres 1"))
        #expect(first.stdout.contains("api_keys: sqlite 1, postgres 1") && first.stdout.contains("copied and verified"))
        let again = try run(["migrate-data", "--from", sqlite, "--to", url])
        #expect(again.status == 0 && again.stdout.contains("links: sqlite 3, postgres 3"))

        let missing = try run(["migrate-data", "--from", folder.appendingPathComponent("nope.sqlite").path, "--to", url])
        #expect(missing.status == 2 && missing.stderr.contains("no SQLite database"))
        let notPostgres = try run(["migrate-data", "--from", sqlite, "--to", "mysql://x"])
        #expect(notPostgres.status == 2 && notPostgres.stderr.contains("--to"))
    }

    /// Every table of the SQLite schema is either copied by `migrate-data` or named as holding no
    /// user data: a new table in neither list fails here (domains, certificates and the generated
    /// admin key were left behind while the command said "copied and verified").
    @Test func migrateDataKnowsEveryTable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-tables-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", sqlite]).status == 0)
        let database = try Database(path: sqlite)
        let tables = try database.read { connection in
            try connection.query("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.string(0) }
        }
        let known = Set(DataCopier.tables).union(DataCopier.notCopied)
        #expect(Set(tables).subtracting(known).isEmpty, "neither copied nor named: \(Set(tables).subtracting(known).sorted())")
        #expect(Set(DataCopier.tables).subtracting(tables).isEmpty)
    }

    /// A project with a domain, a link on it, a certificate, an ACME account and the generated
    /// admin key: all of it is on PostgreSQL after `migrate-data`, and the link answers there.
    @Test func migrateDataCopiesDomainsCertificatesAndTheAdminKey() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-move2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", sqlite]).status == 0)
        let project = try run(["project", "create", "--db", sqlite, "--name", "Shop", "--json"])
        let projectID = String(try #require(project.stdout.firstMatch(of: /"id":"([^"]+)"/)?.1))
        #expect(try run(["domains", "add", "--db", sqlite, "--project", projectID, "go.shop.test"]).status == 0)
        let database = try Database(path: sqlite)
        try database.writeAndWait { connection in
            try connection.run("INSERT INTO server_admin_key (id, key_hash, created_at) VALUES (1, x'0102', 1)")
            try connection.run(
                "INSERT INTO acme_accounts (directory_url, key_pem, account_url, created_at) VALUES ('https://ca/dir', 'k', 'https://ca/a', 1)")
            try connection.run("INSERT INTO domain_certificates (domain, failures, next_attempt_at, updated_at) VALUES ('go.shop.test', 0, 0, 1)")
        }
        try database.flushAndCheckpoint()
        let url = try PostgresCluster.shared().newDatabase()
        let copied = try run(["migrate-data", "--from", sqlite, "--to", url])
        #expect(copied.status == 0, "\(copied.stderr)")
        for table in ["project_domains", "domain_certificates", "acme_accounts", "server_admin_key"] {
            #expect(copied.stdout.contains("\(table): sqlite 1, postgres 1"), "\(table): \(copied.stdout)")
        }
    }

    /// `ATTRIBUTIOND_DATABASE_WRITE_LANES=1`: one lane commits every write, the ordered ones
    /// (clicks) and the rest (installs, events) alike, each answered after its commit.
    @Test func oneWriteLaneCommitsClicksInstallsAndEvents() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let node = try TwoNodeTests.Node(url, environment: ["ATTRIBUTIOND_DATABASE_WRITE_LANES": "1"])
        let (_, token, _, _) = try TwoNodeTests().project(on: node)
        let click = try node.request("GET", "/summer", bearer: nil, headers: ["User-Agent": TwoNodeTests.android])
        #expect(click.status == 200)
        let initialized = try node.request(
            "POST", "/api/client/init", json: #"{"token":"\#(token)","platform":"IOS","install_instance_id":"one-lane"}"#,
            bearer: nil)
        #expect(initialized.status == 200, "\(initialized.bodyText)")
        let event = try node.request(
            "POST", "/api/client/capture-event",
            json: #"{"token":"\#(token)","platform":"IOS","install_instance_id":"one-lane","event_name":"signup","event_id":"e-1"}"#, bearer: nil)
        #expect(event.status == 200, "\(event.bodyText)")
        let database = try PGConnection(url: url)
        #expect(try database.query("SELECT count(*) FROM installs WHERE install_instance_id = 'one-lane'").integer(0, 0) == 1)
        #expect(try database.query("SELECT count(*) FROM events").integer(0, 0) == 1)
        _ = try eventually(timeout: 5) { try database.query("SELECT count(*) FROM clicks").integer(0, 0) == 1 }
        #expect(try database.query("SELECT count(*) FROM clicks").integer(0, 0) == 1)
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
        let serve = try run([
            "serve", "--port", "0", "--database", "postgres://postgres:s3cret-password@127.0.0.1:\(cluster.port)/postgres?connect_timeout=2",
        ])
        #expect(serve.status == 1)
        #expect(serve.stderr.contains("cannot open the database") && serve.stderr.contains("cannot connect to PostgreSQL"), "\(serve.stderr)")
        #expect(!serve.stderr.contains("s3cret-password"))
    }
}
