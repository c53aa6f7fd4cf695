import Attribution
import Foundation
import TestSupport
import Testing

@testable import API
@testable import HTTP

/// The smaller defects of the outside test pass, each through the real socket path.
@Suite struct HardeningTests {
    /// Sends `body` as raw bytes (it may be invalid UTF-8) and returns the response.
    private func post(_ app: TestApp, _ path: String, _ body: [UInt8], key: String? = TestApp.adminKey) throws -> TestResponse {
        let client = try RawClient(port: app.port)
        var head = "POST \(path) HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        client.send(Array((head + "\r\n").utf8) + body)
        return try #require(client.readResponse())
    }

    @Test func anAdminKeyUnderSixteenCharactersStopsTheStart() throws {
        let fromEnvironment = try run(["serve", "--port", "0"], environment: ["ATTRIBUTIOND_ADMIN_KEY": "short-key"])
        #expect(fromEnvironment.status == 2)
        #expect(fromEnvironment.stderr.contains("ATTRIBUTIOND_ADMIN_KEY"))
        #expect(fromEnvironment.stderr.contains("at least 16"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("c.json")
        try Data(#"{"admin_key":"0123456789abcde"}"#.utf8).write(to: file)
        let fromFile = try run(["serve", "--port", "0", "--config", file.path])
        #expect(fromFile.status == 2)
        #expect(fromFile.stderr.contains("admin_key"))
    }

    /// Keys that start a server nobody should trust, or one nobody can authenticate to: refused,
    /// naming the variable and the reason.
    @Test func weakOrUnsendableAdminKeysStopTheStart() throws {
        let refused: [(key: String, reason: String)] = [
            ("aaaaaaaaaaaaaaaa", "different characters"), ("abababababababababab", "different characters"),
            ("change-me-0123456789", "example"), ("CHANGE-ME-0123456789", "example"),
            (" kq3ZpX81mLr7Tw2vN5 ", "spaces"), ("kq3ZpX81mLr7Tw2vN5\n", "line breaks"), ("kq3ZpX81\tmLr7Tw2vN5", "spaces"),
        ]
        for (key, reason) in refused {
            let started = try run(["serve", "--port", "0"], environment: ["ATTRIBUTIOND_ADMIN_KEY": key])
            #expect(started.status == 2, "\(key.debugDescription)")
            #expect(
                started.stderr.contains("ATTRIBUTIOND_ADMIN_KEY") && started.stderr.contains(reason), "\(key.debugDescription): \(started.stderr)")
            #expect(started.stderr.contains("openssl rand -base64 32"))
        }
    }

    /// Two readers of a body with a repeated key could each take another value: refused, named.
    @Test func aBodyWithARepeatedKeyIsRefusedNamingIt() throws {
        let app = try TestApp()
        let (_, key, _) = try app.projectWithLink()
        let response = try post(app, "/api/sdk/v1/install", Array(#"{"userAgent":"Shop/1.0","platform":"iOS","platform":"Android"}"#.utf8), key: key)
        #expect(response.status == 400)
        #expect((response.json?["message"] as? String)?.contains("duplicate key 'platform'") == true, "\(response.bodyText)")
        #expect(try app.count("SELECT count(*) FROM installs") == 0)
    }

    @Test func failedAdminAuthenticationsAreLimitedPerAddressAndSuccessesAreNot() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        // Successes spend nothing.
        for _ in 0..<30 {
            #expect(try app.request("GET", "/admin/v1/projects", headers: ["X-Forwarded-For": "203.0.113.1"]).status == 200)
        }
        var statuses: [Int] = []
        for _ in 0..<12 {
            statuses.append(
                try app.request("GET", "/admin/v1/projects", adminKey: "wrong-key-0123456789", headers: ["X-Forwarded-For": "203.0.113.1"]).status)
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 }, "\(statuses)")
        #expect(statuses.suffix(2).allSatisfy { $0 == 429 }, "\(statuses)")
        // Once blocked, the right key is refused too: a guesser learns nothing while blocked.
        let blocked = try app.request("GET", "/admin/v1/projects", headers: ["X-Forwarded-For": "203.0.113.1"])
        #expect(blocked.status == 429)
        #expect(blocked.header("Retry-After").flatMap(Int.init).map { $0 >= 1 } == true)
        // Another address is unaffected.
        #expect(try app.request("GET", "/admin/v1/projects", headers: ["X-Forwarded-For": "203.0.113.2"]).status == 200)
    }

    @Test func everyRouteReadsStrictJSON() throws {
        let app = try TestApp()
        let (_, token) = try app.linkrunnerProject()
        let cases: [(body: [UInt8], expected: String)] = [
            (Array(#"{"name":"P2",}"#.utf8), "trailing comma"),
            ([0xEF, 0xBB, 0xBF] + Array(#"{"name":"P2"}"#.utf8), "byte order mark"),
            (Array(#"{"name":"P"#.utf8) + [0xFF] + Array(#""}"#.utf8), "invalid UTF-8"),
            (Array(#"{"name":"P"#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8), "invalid UTF-8"),  // overlong '/'
            (Array(#"{"name":"P"#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8), "invalid UTF-8"),  // a surrogate
        ]
        for (body, expected) in cases {
            // A route decoded with Foundation (admin) and one read field by field (Linkrunner).
            let admin = try post(app, "/admin/v1/projects", body)
            #expect(admin.status == 400, "\(expected): \(admin.bodyText)")
            #expect(admin.bodyText.contains(expected), "\(admin.bodyText)")
            let text = String(decoding: body, as: UTF8.self).replacingOccurrences(
                of: #""name":"P"#, with: #""token":"\#(token)","platform":"IOS","install_instance_id":"I"#)
            var linkrunnerBody = Array(text.utf8)
            if expected == "invalid UTF-8" {  // keep the bad bytes, in the instance id
                linkrunnerBody =
                    Array(#"{"token":"\#(token)","platform":"IOS","install_instance_id":"I"#.utf8) + body[10..<(body.count - 2)] + Array(#""}"#.utf8)
            }
            let linkrunner = try post(app, "/api/client/init", linkrunnerBody, key: nil)
            #expect(linkrunner.status == 400, "\(expected): \(linkrunner.bodyText)")
        }
        #expect(try app.count("SELECT count(*) FROM projects") == 1)
        #expect(try app.count("SELECT count(*) FROM installs") == 0)
        // Two ids that differ only in invalid bytes once both became "I\u{FFFD}" and collided.
        #expect(
            try post(
                app, "/api/client/init", Array(#"{"token":"\#(token)","platform":"IOS","install_instance_id":"I"#.utf8) + [0xFE] + Array(#""}"#.utf8),
                key: nil
            ).status == 400)
    }

    @Test func shortCodesAndSlugsThatFixedRoutesShadowAreRefused() throws {
        let app = try TestApp()
        let (projectID, key, _) = try app.projectWithLink()
        for code in ["health", "admin", "api", "metrics", "API", "Health", "dashboard"] {
            let admin = try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"\#(code)"}"#)
            #expect(admin.status == 422, "\(code): \(admin.bodyText)")
            #expect(admin.bodyText.contains("short_code"))
            let sdk = try app.request("POST", "/api/sdk/v1/links", json: #"{"customCode":"\#(code)"}"#, adminKey: key)
            #expect(sdk.status == 422 && sdk.bodyText.contains("customCode"), "\(code): \(sdk.bodyText)")
        }
        let slug = try app.request("POST", "/admin/v1/projects/\(projectID)/templates", json: #"{"slug":"api","name":"T"}"#)
        #expect(slug.status == 422 && slug.bodyText.contains("slug"))
        #expect(try app.count("SELECT count(*) FROM links") == 1)
        // The fixed routes still answer as themselves.
        #expect(try app.request("GET", "/health", adminKey: nil).status == 200)
    }

    @Test func aHostHeaderNobodyConfiguredNeverBecomesALinkURL() throws {
        let app = try TestApp(allowedHosts: ["go.example.com"])
        let (_, key, _) = try app.projectWithLink(#"{"short_code":"hosted","title":"T","web_url":"https://shop.example.com/"}"#)
        let app_ = app
        let key_ = key
        func linkURL(host: String, app: TestApp? = nil, key: String? = nil) throws -> String? {
            let app = app ?? app_
            let key = key ?? key_
            let client = try RawClient(port: app.port)
            let body = #"{"customCode":"h\#(abs(host.hashValue) % 100000)"}"#
            client.send(
                "POST /api/sdk/v1/links HTTP/1.1\r\nHost: \(host)\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            return client.readResponse()?.json?["url"] as? String
        }
        #expect(try linkURL(host: "go.example.com")?.hasPrefix("http://go.example.com/") == true)
        #expect(try linkURL(host: "GO.example.com:8080")?.hasPrefix("http://GO.example.com:8080/") == true)
        #expect(try linkURL(host: "127.0.0.1:\(app.port)")?.hasPrefix("http://127.0.0.1:\(app.port)/") == true)
        // Anything else gets the configured default.
        #expect(try linkURL(host: "evil.example")?.hasPrefix("http://go.example.com/") == true)
        // The preview page's og:url too.
        let client = try RawClient(port: app.port)
        client.send("GET /hosted HTTP/1.1\r\nHost: evil.example\r\nUser-Agent: facebookexternalhit/1.1\r\n\r\n")
        let preview = try #require(client.readResponse())
        #expect(preview.bodyText.contains(#"og:url" content="http://go.example.com/hosted""#), "\(preview.bodyText)")
        #expect(!preview.bodyText.contains("evil.example"))

        // With no allowed host at all, the default is localhost on the listening port.
        let bare = try TestApp(allowedHosts: [])
        let (_, bareKey, _) = try bare.projectWithLink()
        #expect(try linkURL(host: "evil.example", app: bare, key: bareKey)?.hasPrefix("http://localhost:\(bare.port)/") == true)
    }
}

@Suite struct ReservedSegmentTests {
    /// Every first path segment a fixed route uses is refused as a short code and template slug,
    /// so adding a route cannot silently shadow existing links.
    @Test func everyFixedFirstSegmentIsReserved() throws {
        let app = try TestApp()
        let builder = Application.routerBuilder(services: app.services)  // the real table, as the server builds it
        let firsts = Set(
            builder.entries.compactMap { entry -> String? in
                let first = entry.pattern.split(separator: "/").first.map(String.init) ?? ""
                return first.hasPrefix(":") || first.isEmpty ? nil : first
            })
        #expect(!firsts.isEmpty)
        for segment in firsts {
            #expect(ShortCode.isReserved(segment), "'\(segment)' serves fixed routes but is not in ShortCode.reservedWords")
        }
    }
}
