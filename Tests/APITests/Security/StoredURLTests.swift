import Attribution
import Foundation
import HTTP
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App

#if canImport(Glibc)
    import Glibc
#endif

/// Values that once reached `Location` raw: every route that stores a URL, scheme or deep-link
/// path refuses them with a 422 naming the field, and nothing is stored.
@Suite struct StoredURLTests {
    /// Each is refused wherever a web or store URL is expected. JSON-escaped, as a client sends them.
    static let badURLs: [(json: String, why: String)] = [
        (#"https://example.com/\r\nSet-Cookie:sid=x;Domain=example.com"#, "CRLF"),
        (#"https://example.com/\rX"#, "bare CR"),
        (#"https://example.com/\nX"#, "bare LF"),
        (#"https://example.com/\u0000"#, "NUL"),
        (#"https://example.com/\tX"#, "TAB"),
        (#"https://example.com/\u007f"#, "DEL"),
        (#"https://example.com/\u0085X"#, "C1 NEL"),
        (#"https://example.com/\u2028X"#, "line separator"),
        (#"https://example.com/a b"#, "space"),
        (#"https://good.example\\@evil.example/"#, "backslash"),
        (#"javascript:alert(1)"#, "not http"),
        (#"https:///path-only"#, "no host"),
        (#"https://host:99999/"#, "port out of range"),
        (#"//example.com/"#, "relative"),
    ]

    @Test func theLinkFortySDKRouteRefusesAndTheLinkIsNeverServed() throws {
        let app = try TestApp()
        let (_, key, _) = try app.projectWithLink()
        for (index, bad) in Self.badURLs.enumerated() {
            let body = #"{"customCode":"crlf\#(index)x","webFallbackUrl":"\#(bad.json)"}"#
            let response = try app.request("POST", "/api/sdk/v1/links", json: body, adminKey: key)
            #expect(response.status == 422, "\(bad.why): \(response.bodyText)")
            #expect((response.json?["message"] as? String)?.contains("webFallbackUrl") == true, "\(bad.why): \(response.bodyText)")
            let click = try app.request("GET", "/crlf\(index)x", adminKey: nil, headers: ["User-Agent": "Mozilla/5.0 (Windows NT 10.0) Chrome/120.0"])
            #expect(click.status == 404, "\(bad.why)")
            #expect(click.header("Set-Cookie") == nil)
        }
        #expect(try app.count("SELECT count(*) FROM links") == 1)
    }

    @Test func everyRouteThatStoresAURLRefusesEachBadValue() throws {
        let app = try TestApp()
        let (projectID, key, _) = try app.projectWithLink()
        let template = try app.request("POST", "/admin/v1/projects/\(projectID)/templates", json: #"{"slug":"t","name":"T"}"#)
        let templateID = try #require(template.json?["id"] as? String)
        let created = try app.request("POST", "/api/links", json: #"{"templateId":"\#(templateID)","customCode":"editable"}"#, adminKey: key)
        let linkID = try #require(created.json?["id"] as? String)
        let before =
            try app.count("SELECT count(*) FROM links") + app.count("SELECT count(*) FROM templates") + app.count("SELECT count(*) FROM projects")

        for bad in Self.badURLs {
            let url = bad.json
            let attempts: [(method: String, path: String, body: String, key: String?, field: String)] = [
                ("POST", "/admin/v1/projects/\(projectID)/links", #"{"short_code":"adm1","ios_url":"\#(url)"}"#, TestApp.adminKey, "ios_url"),
                ("POST", "/admin/v1/projects/\(projectID)/links", #"{"short_code":"adm2","og_image":"\#(url)"}"#, TestApp.adminKey, "og_image"),
                (
                    "POST", "/admin/v1/projects/\(projectID)/templates", #"{"slug":"t2","name":"T","android_url":"\#(url)"}"#, TestApp.adminKey,
                    "android_url"
                ),
                ("POST", "/admin/v1/projects", #"{"name":"P2","web_url":"\#(url)"}"#, TestApp.adminKey, "web_url"),
                ("PATCH", "/admin/v1/projects/\(projectID)", #"{"ios_store_url":"\#(url)"}"#, TestApp.adminKey, "ios_store_url"),
                ("POST", "/api/links", #"{"templateId":"\#(templateID)","originalUrl":"\#(url)"}"#, key, "originalUrl"),
                ("PUT", "/api/links/\(linkID)", #"{"androidAppStoreUrl":"\#(url)"}"#, key, "androidAppStoreUrl"),
            ]
            for attempt in attempts {
                let response = try app.request(attempt.method, attempt.path, json: attempt.body, adminKey: attempt.key)
                #expect(response.status == 422, "\(bad.why) \(attempt.method) \(attempt.path): \(response.bodyText)")
                #expect((response.json?["message"] as? String)?.contains(attempt.field) == true, "\(bad.why) \(attempt.path): \(response.bodyText)")
            }
        }
        let after =
            try app.count("SELECT count(*) FROM links") + app.count("SELECT count(*) FROM templates") + app.count("SELECT count(*) FROM projects")
        #expect(after == before)
        #expect(try app.count("SELECT count(*) FROM projects WHERE ios_store_url <> 'https://apps.apple.com/app/id123'") == 0)
        #expect(try app.count("SELECT count(*) FROM links WHERE android_url IS NOT NULL") == 0)
    }

    @Test func schemesAndDeepLinkPathsFollowTheirOwnGrammar() throws {
        let app = try TestApp()
        let (projectID, key, _) = try app.projectWithLink()
        let refused: [(String, String)] = [
            (#"{"short_code":"s1","app_scheme":"shop\r\nX-A: b"}"#, "app_scheme"),
            (#"{"short_code":"s2","app_scheme":"Shop"}"#, "app_scheme"),
            (#"{"short_code":"s3","app_scheme":"shop","deep_link_path":"/a\r\nSet-Cookie: x=y"}"#, "deep_link_path"),
            (#"{"short_code":"s4","app_scheme":"shop","deep_link_path":"/a\u2029b"}"#, "deep_link_path"),
            (#"{"short_code":"s5","app_scheme":"shop","deep_link_path":"/a\u0000"}"#, "deep_link_path"),
            // Schemes a browser runs or opens itself: the interstitial would run script on our origin.
            (#"{"short_code":"s6","app_scheme":"javascript","deep_link_path":"alert(1)"}"#, "app_scheme"),
            (#"{"short_code":"s7","app_scheme":"data"}"#, "app_scheme"),
            (#"{"short_code":"s8","app_scheme":"vbscript"}"#, "app_scheme"),
            (#"{"short_code":"s9","app_scheme":"file","deep_link_path":"/etc/passwd"}"#, "app_scheme"),
        ]
        for (body, field) in refused {
            let response = try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: body)
            #expect(response.status == 422, "\(body): \(response.bodyText)")
            #expect((response.json?["message"] as? String)?.contains(field) == true)
        }
        let sdk = try app.request("POST", "/api/sdk/v1/links", json: #"{"deepLinkPath":"/p\r\n"}"#, adminKey: key)
        #expect(sdk.status == 422 && (sdk.json?["message"] as? String)?.contains("deepLinkPath") == true)
        // What real apps use still passes: percent-escapes, queries, non-ASCII text.
        let fine = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/links",
            json:
                #"{"short_code":"okpath","app_scheme":"my-app+x.y","deep_link_path":"/produit/café?id=4%202#top","ios_url":"https://apps.apple.com/fr/app/id1?mt=8&ct=a{b}"}"#
        )
        #expect(fine.status == 201, "\(fine.bodyText)")
    }

    @Test func declaredProjectsInTheConfigFileAreCheckedTheSameWay() throws {
        let app = try TestApp()
        let declaration = try JSONValueParser.parse(Array(#"{"name":"Declared","ios_store_url":"https://apps.apple.com/\r\nX: y"}"#.utf8))
        #expect(throws: DeclaredProjects.Problem.self) { try DeclaredProjects.reconcile([declaration], services: app.services) }
        do {
            _ = try DeclaredProjects.reconcile([declaration], services: app.services)
        } catch let problem as DeclaredProjects.Problem {
            #expect(problem.key == "projects[0].ios_store_url")
        }
        #expect(try app.count("SELECT count(*) FROM projects") == 0)
    }

    @Test func storedRowsThatTodaysRulesRefuseAreReportedNotChanged() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let bad = "https://example.com/\r\nSet-Cookie: a=b"
        try app.transaction { connection in
            try connection.run("UPDATE links SET web_url = ? WHERE short_code = 'summer'", bad)
            try connection.run("UPDATE projects SET android_store_url = ? WHERE id = ?", "ftp://old.example/", projectID)
        }
        let findings = try StoredValueAudit.findings(app: app.services.app)
        #expect(findings.map(\.kind).sorted() == ["link", "project"])
        #expect(findings.contains { $0.kind == "link" && $0.problem.key == "web_url" })
        #expect(findings.contains { $0.kind == "project" && $0.problem.key == "android_store_url" })
        // Nothing was rewritten or dropped.
        let stored = try app.queryOne("SELECT web_url FROM links WHERE short_code = 'summer'") { $0.string(0) }
        #expect(stored == bad)
    }

    @Test func aStoredBadURLNeverSplitsTheResponseItIsServedIn() throws {
        let app = try TestApp()
        _ = try app.projectWithLink(#"{"short_code":"legacy","web_url":"https://example.com/ok"}"#)
        try app.run("UPDATE links SET web_url = ? WHERE short_code = 'legacy'", "https://example.com/\r\nSet-Cookie: sid=x")
        app.services.app.links.invalidateCache()
        let client = try RawClient(port: app.port)
        client.send("GET /legacy HTTP/1.1\r\nHost: t\r\nUser-Agent: Mozilla/5.0 (Windows NT 10.0) Chrome/120.0\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.status == 500)
        #expect(response.header("Set-Cookie") == nil)
        #expect(response.header("Location") == nil)
        #expect(app.refusedResponses.all.first?.contains("Location") == true)
        // The connection is still usable and in step.
        client.send(get("/health"))
        #expect(client.readResponse()?.status == 200)
    }
}

/// The start-up check, through the real binary: a row stored before the URL grammar was tightened
/// is reported on stderr, one warning naming the row and field, and left as it is.
@Suite struct StoredValueAuditStartupTests {
    @Test func aServerStartingOnARefusedRowReportsItAndKeepsIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("db.sqlite").path
        let bad = "https://example.com/\r\nSet-Cookie: a=b"
        do {
            let database = try Database(path: path)
            let created = try SQLiteStore(database: database).projects.create(name: "Old", settings: ProjectSettings())
            try database.writeAndWait { connection in
                try connection.run("UPDATE projects SET web_url = ? WHERE id = ?", bad, created.project.id)
            }
            try database.flushAndCheckpoint()
        }
        let server = try ServerProcess(folder: folder)
        // The audit runs after "listening", on a background queue: wait for its line (bounded).
        var output = server.outputAfterListening
        let deadline = Date().addingTimeInterval(20)
        let fd = server.process.standardError!.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !output.contains("stored values to correct"), Date() < deadline {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) > 0 else { continue }
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            output += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        #expect(server.terminateAndWait() == 0)
        output += server.remainingOutput
        #expect(output.contains("stored value refused by the current rules"), "\(output)")
        #expect(output.contains("\"field\":\"web_url\""), "\(output)")
        let stored = try Database(path: path).read { try $0.queryOne("SELECT web_url FROM projects") { $0.string(0) } }
        #expect(stored == bad)
    }
}
