import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

let safariIPhone =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"

@Suite struct ClickTests {
    @Test func thePlayReferrerCarriesTheLinksOwnUTMUntilTheProjectUsesWarpLink() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
        func referrer() throws -> String {
            let page = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": android]).bodyText
            let start = try #require(page.range(of: "referrer="), "\(page.prefix(400))")
            return String(page[start.upperBound...].prefix { $0 != "\"" && $0 != "&" && $0 != "<" })
        }
        let own = try referrer()
        #expect(own.hasPrefix("utm_source%3Dmail%26utm_campaign%3Dsummer%26click_id%3D") && !own.contains("warplink"), "\(own)")
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)").json?["play_referrer"] as? String == "utm")
        // A WarpLink key: the app runs WarpLink's SDK, which reads its own shape.
        _ = try app.warpLinkKey(projectID)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)").json?["play_referrer"] as? String == "warplink")
        #expect(try referrer().hasPrefix("utm_source%3Dwarplink%26utm_content%3D"))
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"play_referrer":"utm"}"#).status == 200)
        #expect(try referrer().hasPrefix("utm_source%3Dmail"))
        let refused = try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"play_referrer":"branch"}"#)
        #expect((400..<500).contains(refused.status) && refused.bodyText.contains("play_referrer"), "\(refused.bodyText)")
    }

    @Test func aClickIsRecordedWithEverySignal() throws {
        let app = try TestApp()
        let (projectID, _, link) = try app.projectWithLink()
        let response = try app.request(
            "GET", "/summer?utm_source=newsletter&ref=42", adminKey: nil,
            headers: [
                "User-Agent": safariIPhone, "Accept-Language": "fr-FR,fr;q=0.9,en;q=0.8", "Referer": "https://mail.example/inbox",
            ])
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        let clickID = try #require(response.header("X-Click-Id"))
        try app.settle()
        let click = try #require(try app.store.clicks.find(clickID: clickID))
        #expect(click.projectID == projectID)
        #expect(click.linkID == link["id"] as? String)
        #expect(click.source == .link)
        #expect(click.ip == "127.0.0.1" && click.ipKey == "127.0.0.1")
        #expect(click.userAgent == safariIPhone)
        #expect(click.acceptLanguage == "fr-FR,fr;q=0.9,en;q=0.8")
        #expect(click.languages == ["fr-FR", "fr", "en"])
        #expect(click.referer == "https://mail.example/inbox")
        #expect(click.query == ["utm_source": "newsletter", "ref": "42"])
        #expect(click.utm == UTM(source: "newsletter", campaign: "summer"))  // the query's utm_* override the link's
        #expect(click.platform == .ios && click.osVersion == "17.4.1" && click.deviceClass == .iphone)
        #expect(!click.isBot)
        #expect(abs(click.createdAt.milliseconds - app.services.clock.now().milliseconds) < 10_000)
    }

    @Test func aMalformedAcceptLanguageIsStoredAsSentAndTheServerStaysUp() throws {
        let app = try TestApp()
        _ = try app.projectWithLink()
        // ";" once made the language parser index an empty split and trap, taking the server down.
        for header in [";", ";;, ;", ";q=1,de"] {
            let response = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "Accept-Language": header])
            #expect(response.status == 200)
            try app.settle()
            let clickID = try #require(response.header("X-Click-Id"))
            let click = try #require(try app.store.clicks.find(clickID: clickID))
            #expect(click.acceptLanguage == header)
            #expect(click.languages == (header == ";q=1,de" ? ["de"] : []))
        }
        #expect(try app.request("GET", "/health", adminKey: nil).status == 200)
    }

    @Test func theInterstitialIsSmallSelfContainedAndEscaped() throws {
        let app = try TestApp()
        // Such a URL is refused when stored now; a row stored before that rule is still escaped.
        let (projectID, _, _) = try app.projectWithLink(#"{"short_code":"tricky","ios_url":"https://apps.apple.com/app/id1","app_scheme":"shop"}"#)
        let tricky = #"https://apps.apple.com/app/id1?x="</script><script>alert(1)</script>"#
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/links",
                json: #"{"short_code":"tricky2","ios_url":"https://apps.apple.com/app/id1?x=\"</script>"}"#
            ).status == 422)
        try app.run("UPDATE links SET ios_url = ? WHERE short_code = 'tricky'", tricky)
        app.services.app.links.invalidateCache()
        let response = try app.request("GET", "/tricky", adminKey: nil, headers: ["User-Agent": safariIPhone])
        let html = response.bodyText
        #expect(response.body.count < 4096)
        #expect(!html.contains("</script><script>alert"))  // the URL cannot close the script element
        #expect(html.contains(#"\u003c/script\u003e"#))
        #expect(!html.contains("http://") || !html.contains("src=\"http"))  // no external resources
        let policy = try #require(response.header("Content-Security-Policy"))
        let nonce = try #require(policy.split(separator: "'").first { $0.hasPrefix("nonce-") }).dropFirst(6)
        #expect(html.contains("<script nonce=\"\(nonce)\">"))
        #expect(html.contains("<noscript><meta http-equiv=\"refresh\""))
        #expect(html.contains(response.header("X-Click-Id")!))
    }

    @Test func desktopIsRedirectedAndBotsGetOpenGraph() throws {
        let app = try TestApp()
        _ = try app.projectWithLink(
            #"{"short_code":"ogp","max_clicks":100,"web_url":"https://example.com/sale","og":{"title":"Summer <sale>","image":"https://cdn.example.com/s.png"}}"#
        )
        let desktop = try app.request("GET", "/ogp", adminKey: nil, headers: ["User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/120.0"])
        #expect(desktop.status == 302)
        #expect(desktop.header("Location") == "https://example.com/sale")
        let bot = try app.request("GET", "/ogp", adminKey: nil, headers: ["User-Agent": "facebookexternalhit/1.1"])
        #expect(bot.status == 200)
        #expect(bot.bodyText.contains(#"<meta property="og:title" content="Summer &lt;sale&gt;">"#))
        #expect(bot.bodyText.contains(#"og:image" content="https://cdn.example.com/s.png""#))
        #expect(!bot.bodyText.contains("location.replace"))
        let head = try app.request("HEAD", "/ogp", adminKey: nil, headers: ["User-Agent": safariIPhone])
        #expect(head.status == 200)
        try app.settle()
        let bots = try app.count("SELECT count(*) FROM clicks WHERE is_bot = TRUE")
        #expect(bots == 2)  // the preview fetcher, and HEAD even with a browser's UA
        #expect(try app.count("SELECT click_count FROM links WHERE short_code = 'ogp'") == 1)  // bots do not count
    }

    @Test func unknownExpiredExhaustedAndWrongSlugLinksAreNotServed() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink(#"{"short_code":"gone","expires_at":"2020-01-01T00:00:00Z"}"#)
        #expect(try app.request("GET", "/nothing-here", adminKey: nil).status == 404)
        let expired = try app.request("GET", "/gone", adminKey: nil, headers: ["User-Agent": safariIPhone])
        #expect(expired.status == 410)
        #expect(expired.bodyText.contains("expired"))
        _ = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"once","max_clicks":1,"web_url":"https://e.com/"}"#)
        #expect(try app.request("GET", "/once", adminKey: nil, headers: ["User-Agent": safariIPhone]).status == 200)
        #expect(try app.request("GET", "/once", adminKey: nil, headers: ["User-Agent": safariIPhone]).status == 404)
        _ = try app.request("POST", "/admin/v1/projects/\(projectID)/templates", json: #"{"slug":"promo"}"#)
        _ = try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"slugged","template_slug":"promo"}"#)
        #expect(try app.request("GET", "/promo/slugged", adminKey: nil, headers: ["User-Agent": safariIPhone]).status == 200)
        #expect(try app.request("GET", "/other/slugged", adminKey: nil, headers: ["User-Agent": safariIPhone]).status == 404)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE link_id IS NULL") == 0)
    }

    @Test func spoofedForwardedForFromAnUntrustedPeerIsIgnored() throws {
        let app = try TestApp()
        _ = try app.projectWithLink()
        let response = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": "203.0.113.9"])
        try app.settle()
        let click = try #require(try app.store.clicks.find(clickID: response.header("X-Click-Id")!))
        #expect(click.ip == "127.0.0.1")
    }

    @Test func aTrustedProxysForwardedForNamesTheClient() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.0/8", "10.0.0.0/8"])
        _ = try app.projectWithLink()
        func clickIP(_ headers: [String: String]) throws -> Click {
            let response = try app.request("GET", "/summer", adminKey: nil, headers: headers.merging(["User-Agent": safariIPhone]) { $1 })
            try app.settle()
            return try #require(try app.store.clicks.find(clickID: response.header("X-Click-Id")!))
        }
        // The right-most address that is not a trusted proxy is the client; what it claims to its left is not believed.
        #expect(try clickIP(["X-Forwarded-For": "1.1.1.1, 198.51.100.7, 10.1.2.3"]).ip == "198.51.100.7")
        #expect(try clickIP(["Forwarded": #"for="[2001:db8:1:2::5]:443";proto=https"#]).ipKey == "2001:db8:1:2::/64")
        #expect(try clickIP(["X-Forwarded-For": "2001:db8:1:2:aaaa::9"]).ipKey == "2001:db8:1:2::/64")
        #expect(try clickIP(["X-Forwarded-For": "not-an-ip"]).ip == "127.0.0.1")
        #expect(try clickIP([:]).ip == "127.0.0.1")
    }
}

@Suite struct BeaconTests {
    @Test func theBeaconStoresBrowserSignalsOnItsClick() throws {
        let app = try TestApp()
        _ = try app.projectWithLink()
        let clickID = try #require(try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone]).header("X-Click-Id"))
        // sendBeacon posts text/plain.
        let beacon = try app.request(
            "POST", "/c/\(clickID)", json: #"{"sw":390,"sh":844,"dpr":3,"tz":"Europe/Paris","tzo":-60,"langs":["fr-FR","fr"]}"#,
            adminKey: nil, headers: ["Content-Type": "text/plain;charset=UTF-8"])
        #expect(beacon.status == 204)
        let click = try #require(try app.store.clicks.find(clickID: clickID))
        #expect(click.screenWidth == 390 && click.screenHeight == 844 && click.pixelRatio == 3)
        #expect(click.timezone == "Europe/Paris")
        #expect(click.utcOffsetMinutes == 60)  // JavaScript's -60 (minutes west) is UTC+1
        #expect(click.languages == ["fr-FR", "fr"])
        #expect(try app.count("SELECT count(*) FROM clicks WHERE beacon_at IS NOT NULL") == 1)
    }

    @Test func theImageFallbackGETStoresTheSameSignals() throws {
        let app = try TestApp()
        _ = try app.projectWithLink()
        let clickID = try #require(try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone]).header("X-Click-Id"))
        let beacon = try app.request("GET", "/c/\(clickID)?sw=414&sh=896&dpr=2&tzo=300&tz=America%2FNew_York&langs=en-US%2Cen", adminKey: nil)
        #expect(beacon.status == 204)
        let click = try #require(try app.store.clicks.find(clickID: clickID))
        #expect(click.screenWidth == 414 && click.utcOffsetMinutes == -300 && click.timezone == "America/New_York")
        #expect(click.languages == ["en-US", "en"])
    }

    @Test func badBeaconsAre4xxAndChangeNothing() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let clickID = try #require(try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone]).header("X-Click-Id"))
        let cases: [(String, Int)] = [
            (#"{"tz":"Mars/Olympus"}"#, 422), (#"{"sw":-3}"#, 422), (#"{"langs":["a","b","c","d","e","f","g","h","i","j","k"]}"#, 422),
            (#"{"sw":"wide"}"#, 400), (#"{"tzo":1.5}"#, 400), ("[1,2]", 400), ("not json", 400),
        ]
        for (body, status) in cases {
            let response = try app.request("POST", "/c/\(clickID)", json: body, adminKey: nil)
            #expect(response.status == status, "\(body): \(response.bodyText)")
        }
        #expect(try app.store.clicks.find(clickID: clickID)?.timezone == nil)
        #expect(try app.request("POST", "/c/\(UUID().uuidString.lowercased())", json: "{}", adminKey: nil).status == 404)
        #expect(try app.request("POST", "/c/not-a-uuid", json: "{}", adminKey: nil).status == 404)
        // A click older than ten minutes no longer takes signals.
        let old = UUID().uuidString.lowercased()
        try app.run(
            "INSERT INTO clicks (click_id, project_id, created_at) VALUES (?, ?, ?)",
            old, projectID, app.services.clock.now().milliseconds - 11 * 60_000)
        #expect(try app.request("POST", "/c/\(old)", json: #"{"sw":1}"#, adminKey: nil).status == 404)
    }
}
