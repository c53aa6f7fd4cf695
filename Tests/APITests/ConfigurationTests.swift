import Attribution
import Foundation
import TestSupport
import Testing

/// A new temporary folder holding `attributiond.json` with `json` in it.
private func configFolder(_ json: String) throws -> (folder: URL, file: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("attributiond.json")
    try Data(json.utf8).write(to: file)
    return (folder, file.path)
}

private func request(_ port: UInt16, _ method: String, _ path: String, body: String? = nil, adminKey: String? = nil) throws -> TestResponse? {
    let client = try RawClient(port: port)
    client.send(
        "\(method) \(path) HTTP/1.1\r\nHost: t\r\n" + (adminKey.map { "Authorization: Bearer \($0)\r\n" } ?? "")
            + (body.map { "Content-Length: \($0.utf8.count)\r\n\r\n\($0)" } ?? "\r\n"))
    return client.readResponse()
}

@Suite struct ConfigurationTests {
    @Test func withNoConfigurationServeCreatesDataAttributiondSqlite() throws {
        let server = try ServerProcess(defaultDatabase: true)
        #expect(try request(server.port, "GET", "/health/ready")?.status == 200)
        #expect(FileManager.default.fileExists(atPath: server.folder.appendingPathComponent("data/attributiond.sqlite").path))
        #expect(server.terminateAndWait() == 0)
    }

    @Test func invalidConfigurationStopsStartUpNamingTheKey() throws {
        let cases: [(String, [String: String], String)] = [
            (#"{"prot": 8080}"#, [:], "prot"),
            (#"{"port": "eighty"}"#, [:], "port"),
            (#"{"port": 70000}"#, [:], "port"),
            (#"{"limits": {"max_body_bytes": -1}}"#, [:], "limits.max_body_bytes"),
            (#"{"limits": {"idle_timeout": 5}}"#, [:], "limits.idle_timeout"),
            (#"{"limits": {"event_loops": 0}}"#, [:], "limits.event_loops"),
            (#"{"trusted_proxies": ["10.0.0.0/33"]}"#, [:], "trusted_proxies[0]"),
            (#"{"synchronous": "sometimes"}"#, [:], "synchronous"),
            (#"{"projects": [{"name": "A", "min_confidence": 3}]}"#, [:], "projects[0].min_confidence"),
            (#"{"projects": [{"name": "A", "tokn": "x"}]}"#, [:], "tokn"),
            (#"{"projects": [{"name": "A", "token": "short"}]}"#, [:], "projects[0].token"),
            ("{not json", [:], "attributiond.json"),
            (#"{"tls": {"cert": "/tmp/c.pem"}}"#, [:], "tls.key"),
            (#"{"tls": {"cert": "/nonexistent/cert.pem", "key": "/nonexistent/key.pem", "port": 0}}"#, [:], "tls.cert"),
            (#"{"rate_limit": {"requests_per_second": -1}}"#, [:], "rate_limit.requests_per_second"),
            ("{}", ["ATTRIBUTIOND_PORT": "abc"], "ATTRIBUTIOND_PORT"),
            ("{}", ["ATTRIBUTIOND_PROT": "1"], "ATTRIBUTIOND_PROT"),
            (#"{"limits": {"max_connections_per_client": 0}}"#, [:], "limits.max_connections_per_client"),
            (#"{"allowed_hosts": ["go.example.com", "evil.example/x"]}"#, [:], "allowed_hosts[1]"),
            ("{}", ["ATTRIBUTIOND_ALLOWED_HOSTS": "a.example, b example"], "ATTRIBUTIOND_ALLOWED_HOSTS[1]"),
            (#"{"projects": [{"name": "A", "web_url": "https://a.example/\r\nX: y"}]}"#, [:], "projects[0].web_url"),
            (#"{"database_write_lanes": 0}"#, [:], "database_write_lanes"),
            ("{}", ["ATTRIBUTIOND_DATABASE_WRITE_LANES": "many"], "ATTRIBUTIOND_DATABASE_WRITE_LANES"),
            // A key given twice is refused, named, wherever it is; so is --db beside a PostgreSQL URL.
            (#"{"port": 8080, "port": 9090}"#, [:], "duplicate key 'port'"),
            (#"{"limits": {"idle_timeout_seconds": 5, "idle_timeout_seconds": 6}}"#, [:], "duplicate key 'idle_timeout_seconds'"),
            (#"{"database_url": "postgres://user@localhost:1/db"}"#, [:], "--db: and database_url"),
            ("{}", ["ATTRIBUTIOND_DATABASE_URL": "postgres://user@localhost:1/db"], "--db: and ATTRIBUTIOND_DATABASE_URL"),
            (#"{"ip_lists": {"Data Centre": "/tmp/x.txt"}}"#, [:], "ip_lists"),
            (#"{"ip_lists": ["hosting"]}"#, [:], "ip_lists"),
            ("{}", ["ATTRIBUTIOND_IP_LISTS": "hosting=/tmp/a.txt,vpn"], "ATTRIBUTIOND_IP_LISTS"),
        ]
        for (json, environment, key) in cases {
            let (folder, file) = try configFolder(json)
            defer { try? FileManager.default.removeItem(at: folder) }
            let result = try run(["serve", "--config", file, "--db", folder.appendingPathComponent("db.sqlite").path], environment: environment)
            #expect(result.status == 2, "\(json): \(result.stderr)")
            #expect(result.stderr.contains(key), "\(json): \(result.stderr)")
        }
    }

    /// The address lists are read at start: counted in the log, and a line that is no CIDR stops
    /// the start naming its file and line.
    @Test func addressListsAreReadAtStartAndABadLineStopsIt() throws {
        let (folder, _) = try configFolder("{}")
        defer { try? FileManager.default.removeItem(at: folder) }
        let relay = folder.appendingPathComponent("egress-ip-ranges.csv")
        try Data("172.224.226.0/27,FR,FR-IDF,Paris,\n2a02:26f7:b3c0:4000::/64,FR,FR-IDF,Paris,\n".utf8).write(to: relay)
        let hosting = folder.appendingPathComponent("hosting.txt")
        try Data("# a cloud\n203.0.113.0/24\n2001:db8::/32 # docs\n".utf8).write(to: hosting)
        let server = try ServerProcess(
            folder: folder,
            environment: ["ATTRIBUTIOND_PRIVATE_RELAY_LIST": relay.path, "ATTRIBUTIOND_IP_LISTS": "hosting=\(hosting.path)"])
        #expect(server.outputBeforeListening.contains("address lists loaded"), "\(server.outputBeforeListening)")
        #expect(server.outputBeforeListening.contains(#""private_relay":"2""#) && server.outputBeforeListening.contains(#""hosting":"2""#))
        #expect(server.terminateAndWait() == 0)

        try Data("203.0.113.0/24\n203.0.113.999\n".utf8).write(to: hosting)
        let refused = try run(
            ["serve", "--db", folder.appendingPathComponent("db2.sqlite").path],
            environment: ["ATTRIBUTIOND_IP_LISTS": "hosting=\(hosting.path)"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("hosting.txt: line 2") && refused.stderr.contains("203.0.113.999"), "\(refused.stderr)")
    }

    /// Prometheus gets a token of its own: it reads /metrics, and nothing else.
    @Test func aMetricsTokenReadsTheMetricsAndNothingElse() throws {
        let admin = "metrics-test-admin-key-0123456789"
        let token = "scraper-token-kq3ZpX81mLr7Tw2vN5"
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_ADMIN_KEY": admin, "ATTRIBUTIOND_METRICS_TOKEN": token])
        defer { _ = server.terminateAndWait() }
        let scraped = try #require(try request(server.port, "GET", "/metrics", adminKey: token))
        #expect(scraped.status == 200 && scraped.bodyText.contains("attributiond_http_requests_total"))
        #expect(try request(server.port, "GET", "/admin/v1/projects", adminKey: token)?.status == 401)
        #expect(try request(server.port, "GET", "/metrics", adminKey: admin)?.status == 200)
        #expect(try request(server.port, "GET", "/metrics", adminKey: "not-the-token-0123456789")?.status == 401)
        let weak = try run(
            ["serve", "--port", "0"], environment: ["ATTRIBUTIOND_ADMIN_KEY": admin, "ATTRIBUTIOND_METRICS_TOKEN": "aaaaaaaaaaaaaaaaaaaa"])
        #expect(weak.status == 2 && weak.stderr.contains("ATTRIBUTIOND_METRICS_TOKEN"))
    }

    @Test func environmentOverridesTheFileAndFlagsOverrideBoth() throws {
        let (folder, file) = try configFolder(#"{"admin_key": "from-the-file-0123456789"}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServerProcess(["--config", file], environment: ["ATTRIBUTIOND_ADMIN_KEY": "from-the-environment-0123"])
        #expect(try request(server.port, "GET", "/admin/v1/projects", adminKey: "from-the-file-0123456789")?.status == 401)
        #expect(try request(server.port, "GET", "/admin/v1/projects", adminKey: "from-the-environment-0123")?.status == 200)
        #expect(server.terminateAndWait() == 0)
    }

    @Test func projectsDeclaredInTheFileAreCreatedThenUpdatedNotDuplicated() throws {
        let declared = #"""
            {"admin_key": "admin-key-0123456789abc",
             "projects": [{"name": "Shop", "token": "shop-token-0123456789", "api_keys": ["shop-key-0123456789abc"], "min_confidence": 0.4}]}
            """#
        let (folder, file) = try configFolder(declared)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("db.sqlite").path
        for expectedConfidence in [0.4, 0.6] {
            if expectedConfidence == 0.6 {
                try Data(declared.replacingOccurrences(of: "0.4", with: "0.6").utf8).write(to: URL(fileURLWithPath: file))
            }
            let server = try ServerProcess(["--config", file, "--db", database])
            let list = try #require(try request(server.port, "GET", "/admin/v1/projects", adminKey: "admin-key-0123456789abc"))
            let projects = try #require(try JSONSerialization.jsonObject(with: Data(list.body)) as? [[String: Any]])
            #expect(projects.count == 1)
            #expect(projects.first?["name"] as? String == "Shop")
            #expect(projects.first?["min_confidence"] as? Double == expectedConfidence)
            #expect(server.terminateAndWait() == 0)
        }
    }

    @Test func aDeclaredTestModeProjectHasItsClockAndTheModeCannotFlip() throws {
        let declared = #"""
            {"admin_key": "admin-key-0123456789abc", "projects": [{"name": "Sandbox", "test_mode": true}]}
            """#
        let (folder, file) = try configFolder(declared)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("db.sqlite").path
        let server = try ServerProcess(["--config", file, "--db", database])
        let list = try #require(try request(server.port, "GET", "/admin/v1/projects", adminKey: "admin-key-0123456789abc"))
        let id = try #require((try JSONSerialization.jsonObject(with: Data(list.body)) as? [[String: Any]])?.first?["id"] as? String)
        let moved = try #require(
            try request(
                server.port, "POST", "/admin/v1/projects/\(id)/clock", body: #"{"advance_seconds":60}"#,
                adminKey: "admin-key-0123456789abc"))
        #expect(moved.status == 200)
        #expect(server.terminateAndWait() == 0)

        try Data(declared.replacingOccurrences(of: "true", with: "false").utf8).write(to: URL(fileURLWithPath: file))
        let refused = try run(["--config", file, "--db", database])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("projects[0].test_mode"), "\(refused.stderr)")
    }

    @Test func migrateAndProjectCommandsWorkOnTheSameDatabase() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-cmd-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("nested/db.sqlite").path
        let migrate = try run(["migrate", "--db", db])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stdout.contains("applied 0001_initial.sql"))
        #expect(try run(["migrate", "--db", db]).stdout.contains("up to date"))

        let created = try run(["project", "create", "--name", "Shop", "--json", "--db", db])
        #expect(created.status == 0, "\(created.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])
        #expect(json["token"]?.hasPrefix("tok_") == true && json["api_key"]?.hasPrefix("ak_") == true)
        let id = try #require(json["id"])

        let duplicate = try run(["project", "create", "--name", "Shop", "--db", db])
        #expect(duplicate.status == 1)
        #expect(duplicate.stderr.contains("already exists"))

        let list = try run(["project", "list", "--json", "--db", db])
        #expect(list.stdout.contains(id))
        let show = try run(["project", "show", id, "--db", db])
        #expect(show.status == 0)
        #expect(show.stdout.contains("attribution_window_hours  168"))
        #expect(try run(["project", "show", "nope", "--db", db]).status == 1)
        #expect(try run(["project", "create", "--db", db]).status == 2)  // --name missing

        let link = try run([
            "link", "create", "--project", id, "--code", "launch", "--ios-url", "https://apps.apple.com/app/id1",
            "--base-url", "https://go.example.com", "--json", "--db", db,
        ])
        #expect(link.status == 0, "\(link.stderr)")
        let linkJSON = try #require(try JSONSerialization.jsonObject(with: Data(link.stdout.utf8)) as? [String: String])
        #expect(linkJSON["url"] == "https://go.example.com/launch")
        #expect(try run(["link", "create", "--project", id, "--code", "launch", "--db", db]).stderr.contains("already taken"))
        #expect(try run(["link", "create", "--project", id, "--ios-url", "ftp://x", "--db", db]).status == 2)
        #expect(try run(["link", "create", "--project", "nope", "--db", db]).status == 1)
        let qr = try run(["link", "qr", "launch", "--base-url", "https://go.example.com/", "--ecc", "q", "--margin", "2", "--db", db])
        #expect(qr.status == 0, "\(qr.stderr)")
        #expect(qr.stdout == (try QRCode(text: "https://go.example.com/launch", correction: .quartile)).svg(margin: 2))
        #expect(try run(["link", "qr", "nope", "--db", db]).status == 1)
        #expect(try run(["link", "qr", "launch", "--ecc", "X", "--db", db]).status == 2)
        // The server sees the link the command created.
        let server = try ServerProcess(["--db", db])
        let client = try RawClient(port: server.port)
        client.send("GET /launch HTTP/1.1\r\nHost: t\r\nUser-Agent: Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        #expect(server.terminateAndWait() == 0)
    }
}
