import Attribution
import Foundation
import GeoIP
import StoreContracts
import TestSupport
import Testing

@testable import API
@_spi(StoreInternals) @testable import Store

private let desktopChrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36"
private let pixelChrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Mobile Safari/537.36"
private let instagramIPhone =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 327.0.0.30.120 (iPhone14,5; iOS 17_4; en_US; en; scale=3.00; 1170x2532; 595442516)"

extension TestApp {
    /// A tap on `path` from `ip` (through a trusted proxy) with `userAgent`.
    func tap(_ path: String, ip: String = "198.51.100.10", userAgent: String = desktopChrome, headers: [String: String] = [:]) throws
        -> TestResponse
    {
        try request("GET", path, adminKey: nil, headers: ["User-Agent": userAgent, "X-Forwarded-For": ip].merging(headers) { $1 })
    }

    /// A form posted to `path` (`application/x-www-form-urlencoded`).
    func postForm(_ path: String, _ body: String, ip: String = "198.51.100.10", userAgent: String = desktopChrome) throws -> TestResponse {
        let client = try RawClient(port: port)
        let head =
            "POST \(path) HTTP/1.1\r\nHost: test\r\nUser-Agent: \(userAgent)\r\nX-Forwarded-For: \(ip)\r\n"
            + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        client.send(Array(head.utf8) + Array(body.utf8))
        guard let response = client.readResponse() else { throw ConnectError(code: 0) }
        return response
    }

    func clickRow(_ response: TestResponse) throws -> Click {
        try settle()
        let clickID = try #require(response.header("X-Click-Id"))
        return try #require(try store.clicks.find(clickID: clickID))
    }
}

/// A MaxMind-format country database, written by Debian's libmaxmind-db-writer-perl
/// (`scripts/ensure-deps --test` installs it): three networks and their countries.
private func testGeoDatabase() throws -> String {
    try maxMindTestDatabase(
        named: "countries",
        tree: """
            my $tree = MaxMind::DB::Writer::Tree->new(
                ip_version => 6, record_size => 24, database_type => 'attributiond-Test-Country', languages => ['en'],
                remove_reserved_networks => 0,
                description => { en => 'attributiond test countries' },
                map_key_type_callback => sub { { country => 'map', registered_country => 'map', iso_code => 'utf8_string' }->{ $_[0] } },
            );
            $tree->insert_network('198.51.100.0/24', { country => { iso_code => 'DE' } });
            $tree->insert_network('203.0.113.0/24', { registered_country => { iso_code => 'FR' } });
            $tree->insert_network('2001:db8:1::/48', { country => { iso_code => 'JP' } });
            """)
}

@Suite struct LinkRulesHTTPTests {
    static let rules = """
        [{"when":{"in_app":["instagram"]},"url":"https://shop.example.com/instagram"},
         {"when":{"platform":"android","os_version":{"max":"13"}},"url":"https://shop.example.com/old-android"},
         {"when":{"country":"DE"},"url":"https://shop.example.com/de"},
         {"when":{"language":"fr"},"url":"https://shop.example.com/fr"},
         {"when":{"platform":"desktop","after":"2000-01-01T00:00:00Z","before":"2001-01-01T00:00:00Z"},"url":"https://shop.example.com/y2k"},
         {"when":{"platform":"desktop"},"url":"https://shop.example.com/desktop"}]
        """

    @Test func tapsGoWhereTheFirstMatchingRuleSaysAndTheClickIsRecordedOnce() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], countries: TapCountries(header: "CF-IPCountry"))
        let (projectID, _, link) = try app.projectWithLink(#"{"short_code":"rules","utm":{"source":"mail"},"rules":\#(Self.rules)}"#)
        #expect((link["rules"] as? [[String: Any]])?.count == 6)
        #expect((link["rules"] as? [[String: Any]])?.first?["url"] as? String == "https://shop.example.com/instagram")

        // Desktop, no country, English: the desktop rule (the y2k window is long past), UTM kept.
        let desktop = try app.tap("/rules", headers: ["Accept-Language": "en-GB"])
        #expect(desktop.status == 302)
        #expect(desktop.header("Location") == "https://shop.example.com/desktop?utm_source=mail")
        // The country from the trusted proxy's header.
        let german = try app.tap("/rules", headers: ["CF-IPCountry": "de"])
        #expect(german.header("Location") == "https://shop.example.com/de?utm_source=mail")
        #expect(try app.clickRow(german).country == "DE")
        // Unknown placeholders are no country: the language rule decides.
        let french = try app.tap("/rules", headers: ["CF-IPCountry": "XX", "Accept-Language": "fr-CA,en;q=0.5"])
        #expect(french.header("Location") == "https://shop.example.com/fr?utm_source=mail")
        #expect(try app.clickRow(french).country == nil)
        // Android 14 is past the old-Android rule; with French it is the language rule, on the interstitial.
        let android = try app.tap("/rules", userAgent: pixelChrome, headers: ["Accept-Language": "fr"])
        #expect(android.status == 200)
        #expect(String(decoding: android.body, as: UTF8.self).contains("https://shop.example.com/fr?utm_source=mail"))
        let oldAndroid = try app.tap(
            "/rules", userAgent: "Mozilla/5.0 (Linux; Android 12; SM-G991B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36")
        #expect(String(decoding: oldAndroid.body, as: UTF8.self).contains("https://shop.example.com/old-android"))
        // No rule holds for an English iPhone: the link's own destination (the project's store).
        let iPhone = try app.tap("/rules", userAgent: safariIPhone, headers: ["Accept-Language": "en"])
        #expect(String(decoding: iPhone.body, as: UTF8.self).contains("https://apps.apple.com/app/id123"))
        // A rule for Instagram's browser decides its taps: they are not led out to Safari.
        let instagram = try app.tap("/rules", userAgent: instagramIPhone)
        #expect(instagram.status == 200)
        let page = String(decoding: instagram.body, as: UTF8.self)
        #expect(page.contains("https://shop.example.com/instagram"))
        #expect(!page.contains("Open in Safari"))
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE project_id = '\(projectID)'") == 7)
    }

    @Test func theCountryComesFromAGeoDatabaseAndAHeaderOnlyFromATrustedProxy() throws {
        let database = try MaxMindCountries(path: try testGeoDatabase())
        #expect(database.country(ofIP: "198.51.100.77") == "DE")
        #expect(database.country(ofIP: "203.0.113.5") == "FR")  // the registered country when no country is given
        #expect(database.country(ofIP: "2001:db8:1:2::9") == "JP")
        #expect(database.country(ofIP: "192.0.2.1") == nil)
        #expect(database.country(ofIP: "not an address") == nil)

        let app = try TestApp(trustedProxies: ["127.0.0.1"], countries: TapCountries(database: database, header: "CF-IPCountry"))
        _ = try app.projectWithLink(#"{"short_code":"rules","rules":\#(Self.rules)}"#)
        let fromGermany = try app.tap("/rules", ip: "198.51.100.77")
        #expect(fromGermany.header("Location") == "https://shop.example.com/de")
        #expect(try app.clickRow(fromGermany).country == "DE")
        #expect(try app.clickRow(try app.tap("/rules", ip: "2001:db8:1:2::9")).country == "JP")
        // The proxy's header wins over the database (it looked the real client up).
        #expect(try app.clickRow(try app.tap("/rules", ip: "198.51.100.77", headers: ["CF-IPCountry": "IT"])).country == "IT")

        // Without a trusted proxy in front, the header is the client's own claim: ignored.
        let direct = try TestApp(countries: TapCountries(header: "CF-IPCountry"))
        _ = try direct.projectWithLink(#"{"short_code":"rules","rules":\#(Self.rules)}"#)
        let spoofed = try direct.request("GET", "/rules", adminKey: nil, headers: ["User-Agent": desktopChrome, "CF-IPCountry": "DE"])
        #expect(spoofed.header("Location") == "https://shop.example.com/desktop")
        #expect(try direct.clickRow(spoofed).country == nil)
    }

    @Test func rulesAreCheckedNamingTheKeyAndEditedWithPatch() throws {
        let app = try TestApp()
        let (projectID, _, link) = try app.projectWithLink()
        let linkID = try #require(link["id"] as? String)
        let bad = try app.request(
            "PATCH", "/admin/v1/projects/\(projectID)/links/\(linkID)", json: #"{"rules":[{"when":{"platform":"beos"},"url":"https://a.example/"}]}"#)
        #expect(bad.status == 422)
        #expect(bad.json?["error"] as? String == "invalid_field")
        #expect((bad.json?["message"] as? String)?.hasPrefix("rules[0].when.platform: unknown platform 'beos'") == true, "\(bad.bodyText)")
        let set = try app.request(
            "PATCH", "/admin/v1/projects/\(projectID)/links/\(linkID)", json: #"{"rules":[{"when":{"country":["at"]},"url":"https://a.example/at"}]}"#
        )
        #expect(set.status == 200)
        #expect(((set.json?["rules"] as? [[String: Any]])?.first?["when"] as? [String: Any])?["country"] as? [String] == ["AT"])
        // Other keys leave the rules alone; null clears them.
        let renamed = try app.request("PATCH", "/admin/v1/projects/\(projectID)/links/\(linkID)", json: #"{"title":"Summer"}"#)
        #expect((renamed.json?["rules"] as? [Any])?.count == 1)
        let cleared = try app.request("PATCH", "/admin/v1/projects/\(projectID)/links/\(linkID)", json: #"{"rules":null}"#)
        #expect((cleared.json?["rules"] as? [Any])?.isEmpty == true)
        #expect(try app.count("SELECT count(*) FROM links WHERE rules IS NULL AND id = '\(linkID)'") == 1)
    }
}

@Suite struct LinkVariantsHTTPTests {
    @Test func visitorsKeepTheirVariantWhichTheClickAndTheInstallCarryAndTheReportCounts() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, link) = try app.projectWithLink(
            #"{"short_code":"summer","variants":[{"name":"red","url":"https://shop.example.com/red","weight":1},{"name":"blue","url":"https://shop.example.com/blue","weight":1}]}"#
        )
        let linkID = try #require(link["id"] as? String)
        #expect((link["variants"] as? [[String: Any]])?.map { $0["name"] as? String } == ["red", "blue"])
        var seen: [String: Int] = [:]
        for visitor in 0..<60 {
            let ip = "203.0.113.\(visitor)"
            let first = try app.tap("/summer", ip: ip).header("Location")
            let again = try app.tap("/summer", ip: ip).header("Location")
            #expect(first == again)  // the same visitor, the same arm
            let arm = try #require(first).contains("/red") ? "red" : "blue"
            seen[arm, default: 0] += 1
        }
        #expect(seen["red", default: 0] > 10 && seen["blue", default: 0] > 10)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE link_id = '\(linkID)' AND variant = 'red'") == Int64(2 * seen["red"]!))

        // An install credited to a click takes its variant.
        let clickID = try app.clickWithBeacon(ip: "198.51.100.23")
        try app.settle()
        let arm = try #require(try app.store.clicks.find(clickID: clickID)?.variant)
        let install = try app.install(ip: "198.51.100.23", key: key)
        #expect(install.json?["attributed"] as? Bool == true)
        let installID = try #require(install.json?["installId"] as? String)
        let event = try app.request(
            "POST", "/api/sdk/v1/event", json: #"{"installId":"\#(installID)","eventName":"purchase","eventData":{"revenue":12.5,"currency":"EUR"}}"#,
            adminKey: key)
        #expect(event.status == 200)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM installs WHERE id = '\(installID)' AND variant = '\(arm)'") == 1)

        let report = try app.request("GET", "/admin/v1/projects/\(projectID)/links/\(linkID)/variants?since=2000-01-01T00:00:00Z")
        #expect(report.status == 200)
        let rows = try #require(report.json?["variants"] as? [[String: Any]])
        #expect(rows.map { $0["name"] as? String } == ["red", "blue"])
        let row = try #require(rows.first { $0["name"] as? String == arm })
        #expect(row["installs"] as? Int == 1)
        #expect(row["events"] as? Int == 1)
        #expect(rows.reduce(0) { $0 + ($1["clicks"] as? Int ?? 0) } == 121)
        #expect(rows.first { $0["name"] as? String != arm }?["installs"] as? Int == 0)
    }
}

@Suite struct LinkPasswordAndExpiryTests {
    @Test func aPasswordPageComesBeforeAnyRedirectAndNoClickUntilItIsRight() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, link) = try app.projectWithLink(
            #"{"short_code":"secret","web_url":"https://shop.example.com/vip","password":"open sesame"}"#)
        #expect(link["has_password"] as? Bool == true)
        #expect(link["password"] == nil)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM links WHERE password_hash LIKE 'pbkdf2-sha256$%' AND short_code = 'secret'") == 1)

        let page = try app.tap("/secret?utm_campaign=vip")
        #expect(page.status == 200)
        #expect(page.header("Location") == nil)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains(#"<form method="post" action="/secret?utm_campaign=vip">"#))
        #expect(!html.contains("<script"))
        let wrong = try app.postForm("/secret?utm_campaign=vip", "password=open+sesam")
        #expect(wrong.status == 401)
        #expect(String(decoding: wrong.body, as: UTF8.self).contains("not right"))
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE project_id = '\(projectID)'") == 0)

        // A request in absolute form (as to a proxy) still posts back to this server's path.
        let client = try RawClient(port: app.port)
        client.send(Array("GET http://evil.example/secret?x=1 HTTP/1.1\r\nHost: test\r\nUser-Agent: \(desktopChrome)\r\n\r\n".utf8))
        let absolute = try #require(client.readResponse())
        #expect(absolute.bodyText.contains(#"<form method="post" action="/secret?x=1">"#), "\(absolute.bodyText)")

        let right = try app.postForm("/secret?utm_campaign=vip", "password=open%20sesame")
        #expect(right.status == 302)
        #expect(right.header("Location") == "https://shop.example.com/vip?utm_campaign=vip")
        #expect(try app.clickRow(right).utm.campaign == "vip")
        #expect(try app.count("SELECT count(*) FROM clicks WHERE project_id = '\(projectID)'") == 1)
    }

    @Test func aProtectedOrSwitchedOffLinkGivesNoDestinationThroughItsDebugPageOrAnAppOpen() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let project = try app.createProject("Shop")
        let projectID = try #require(project["id"] as? String)
        let (key, token) = (try #require(project["api_key"] as? String), try #require(project["token"] as? String))
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/links",
                json:
                    #"{"short_code":"secret","web_url":"https://shop.example.com/vip","ios_url":"https://shop.example.com/ios-vip","password":"open sesame"}"#
            ).status == 201)
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/links",
                json: #"{"short_code":"retired","web_url":"https://shop.example.com/old","active":false}"#
            )
            .status == 201)
        let warpKey = try app.warpLinkKey(projectID)
        for code in ["secret", "retired"] {
            let debug = try app.tap("/\(code)?d=1")
            #expect(!debug.bodyText.contains("shop.example.com/"), "?d=1 of \(code): \(debug.bodyText.prefix(300))")
            let resolved = try app.request("GET", "/api/sdk/v1/resolve/\(code)", adminKey: key)
            #expect(resolved.status == (code == "secret" ? 403 : 404) && !resolved.bodyText.contains("shop.example.com/"), "\(resolved.bodyText)")
            let warp = try app.request("GET", "/v1/links/resolve/\(code)", adminKey: warpKey, headers: ["User-Agent": "WarpLink-iOS/0.1.0"])
            #expect(warp.status == (code == "secret" ? 403 : 404) && !warp.bodyText.contains("shop.example.com/"), "\(warp.bodyText)")
            let opened = try app.request(
                "POST", "/api/client/handle-deeplink",
                json: #"{"token":"\#(token)","platform":"IOS","install_instance_id":"dev-1","deeplink_url":"http://test/\#(code)"}"#, adminKey: nil)
            #expect(opened.status == 200 && (opened.json?["data"] as? [String: Any])?["is_linkrunner"] as? Bool == false, "\(opened.bodyText)")
        }
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE project_id = '\(projectID)'") == 0)
    }

    @Test func wrongPasswordsSpendTheClientsBudget() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        _ = try app.projectWithLink(#"{"short_code":"secret","password":"right"}"#)
        var statuses: [Int] = []
        for _ in 0..<12 { statuses.append(try app.postForm("/secret", "password=wrong", ip: "198.51.100.99").status) }
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 })
        #expect(statuses.suffix(2).allSatisfy { $0 == 429 })
        let blocked = try app.postForm("/secret", "password=right", ip: "198.51.100.99")
        #expect(blocked.status == 429)
        #expect(blocked.header("Retry-After") != nil)
        // Another client is not held back.
        #expect(try app.postForm("/secret", "password=right", ip: "198.51.100.100").status == 302)
    }

    @Test func thePasswordIsKeptByOtherEditsAndClearedByNull() throws {
        let app = try TestApp()
        let (projectID, _, link) = try app.projectWithLink(#"{"short_code":"secret","password":"right"}"#)
        let path = "/admin/v1/projects/\(projectID)/links/\(link["id"] as! String)"
        #expect(try app.request("PATCH", path, json: #"{"title":"VIP"}"#).json?["has_password"] as? Bool == true)
        let empty = try app.request("PATCH", path, json: #"{"password":""}"#)
        #expect(empty.status == 422)
        #expect((empty.json?["message"] as? String)?.hasPrefix("password: must be 1 to 128 characters") == true, "\(empty.bodyText)")
        #expect(try app.request("PATCH", path, json: #"{"password":null}"#).json?["has_password"] as? Bool == false)
        #expect(try app.request("GET", "/secret", adminKey: nil, headers: ["User-Agent": desktopChrome]).status == 302)
    }

    @Test func anExpiredLinkGoesToItsExpiredURLOrAnswers410() throws {
        let app = try TestApp()
        let (projectID, _, link) = try app.projectWithLink(
            #"{"short_code":"sale","expires_at":"2001-01-01T00:00:00Z","expired_url":"https://shop.example.com/sale-over"}"#)
        #expect(link["expired_url"] as? String == "https://shop.example.com/sale-over")
        let moved = try app.request("GET", "/sale", adminKey: nil, headers: ["User-Agent": desktopChrome])
        #expect(moved.status == 302)
        #expect(moved.header("Location") == "https://shop.example.com/sale-over")
        let path = "/admin/v1/projects/\(projectID)/links/\(link["id"] as! String)"
        #expect(try app.request("PATCH", path, json: #"{"expired_url":"javascript:alert(1)"}"#).status == 422)
        #expect(try app.request("PATCH", path, json: #"{"expired_url":null}"#).status == 200)
        #expect(try app.request("GET", "/sale", adminKey: nil, headers: ["User-Agent": desktopChrome]).status == 410)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE project_id = '\(projectID)'") == 0)
    }
}
