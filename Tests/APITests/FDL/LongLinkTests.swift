import Foundation
import Store
import StoreContracts
import TestSupport
import Testing

/// Firebase Dynamic Links' long links on a project domain: each device lands where FDL's rules
/// send it, the click is recorded and attributed like any other, and `d=1` explains without one.
@Suite struct LongLinkTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
    static let iPad = "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64; rv:126.0) Gecko/20100101 Firefox/126.0"

    static func app() throws -> (TestApp, String) {
        let app = try TestApp()
        let project = try #require(
            try app.createProject(
                "Shop",
                extra:
                    #","ios_bundle_id":"com.example.shop","ios_team_id":"ABCDE12345","android_package":"com.example.shop","web_url":"https://shop.example/""#
            )[
                "id"] as? String)
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"shop.page.link"}"#).status == 201)
        return (app, project)
    }

    static let deepLink = "https%3A%2F%2Fshop.example%2Fproduct%2F42%3Fcolor%3Dred"

    func tap(_ app: TestApp, _ query: String, agent: String) throws -> TestResponse {
        try app.request("GET", "/?\(query)", adminKey: nil, headers: ["User-Agent": agent], host: "shop.page.link")
    }

    @Test func aLongLinkGoesOnlyWhereTheProjectVouchesFor() throws {
        let (app, project) = try Self.app()
        let evil = [
            "link=https%3A%2F%2Fevil.example%2F", "link=https%3A%2F%2Fshop.example%40evil.example%2F",
            "link=https%3A%2F%2Fuser%3Apass%40shop.example%2F", "link=\(Self.deepLink)&ofl=https%3A%2F%2Fevil.example%2F",
            "link=\(Self.deepLink)&afl=https%3A%2F%2Fshop.example.evil.example%2F",
        ]
        for query in evil {
            let refused = try tap(app, query, agent: Self.desktop)
            #expect(refused.status == 422 && refused.header("Location") == nil, "\(query): \(refused.status) \(refused.bodyText)")
        }
        // An app id is an app id: FDL's default scheme is the bundle id, so no script can ride on it.
        for bad in ["ibi=javascript", "ibi=data%3Atext", "apn=javascript%3Aalert(1)"] {
            #expect(try tap(app, "link=\(Self.deepLink)&\(bad)", agent: Self.iPhone).status == 422, "\(bad)")
        }
        #expect(try app.count("SELECT count(*) FROM links") == 0)
        // The project's allow-list opens a host (and its subdomains with *.).
        #expect(
            try app.request("PATCH", "/admin/v1/projects/\(project)", json: #"{"long_link_hosts":["*.partner.example","Blog.Example"]}"#).json?[
                "long_link_hosts"] as? [String] == ["*.partner.example", "blog.example"])
        #expect(try app.request("PATCH", "/admin/v1/projects/\(project)", json: #"{"long_link_hosts":["https://x/"]}"#).status == 422)
        #expect(try tap(app, "link=https%3A%2F%2Fblog.example%2Fpost", agent: Self.desktop).status == 302)
        #expect(try tap(app, "link=https%3A%2F%2Fwww.partner.example%2F", agent: Self.desktop).status == 302)
        #expect(try tap(app, "link=https%3A%2F%2Fpartner.example%2F", agent: Self.desktop).status == 422)
        // The REST API's long links are held to the same rule.
        let key = try #require(try app.request("POST", "/admin/v1/projects/\(project)/api-keys").json?["key"] as? String)
        let minted = try app.request(
            "POST", "/v1/shortLinks?key=\(key)", json: #"{"longDynamicLink":"https://shop.page.link/?link=https://evil.example/"}"#, adminKey: nil)
        #expect(minted.status == 400 && minted.bodyText.contains("evil.example"), "\(minted.status) \(minted.bodyText)")
    }

    @Test func oneClientCannotFillADomainsLongLinksAndTheOwnerSetsTheLimit() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let project = try #require(try app.createProject("Shop", extra: #","web_url":"https://shop.example/""#)["id"] as? String)
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"shop.page.link"}"#).status == 201)
        func tap(_ path: String, from ip: String) throws -> Int {
            try app.request(
                "GET", "/?link=https%3A%2F%2Fshop.example%2F\(path)", adminKey: nil,
                headers: ["User-Agent": Self.desktop, "X-Forwarded-For": ip], host: "shop.page.link"
            ).status
        }
        let statuses = try (0..<25).map { try tap("p\($0)", from: "198.51.100.1") }
        #expect(statuses.prefix(20).allSatisfy { $0 == 302 } && statuses.suffix(5).allSatisfy { $0 == 429 }, "\(statuses)")
        // A long link already made is followed whoever taps it; another client makes its own.
        #expect(try tap("p0", from: "198.51.100.1") == 302)
        #expect(try tap("q0", from: "198.51.100.2") == 302)
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code LIKE 'fdl%'") == 21)
        // The owner lowers the limit: no new one until it is cleared.
        #expect(try app.request("PATCH", "/admin/v1/projects/\(project)", json: #"{"long_links_per_domain":21}"#).status == 200)
        let full = try app.request(
            "GET", "/?link=https%3A%2F%2Fshop.example%2Fnew", adminKey: nil,
            headers: ["User-Agent": Self.desktop, "X-Forwarded-For": "198.51.100.3"], host: "shop.page.link")
        #expect(full.status == 422 && full.bodyText.contains("long_links_per_domain"), "\(full.bodyText)")
        let domain = try #require(
            (try app.request("GET", "/admin/v1/projects/\(project)/domains").json?["domains"] as? [[String: Any]])?.first?["id"] as? String)
        let cleared = try app.request("DELETE", "/admin/v1/projects/\(project)/domains/\(domain)/long-links")
        #expect(cleared.status == 200 && cleared.json?["deleted"] as? Int == 21, "\(cleared.bodyText)")
        #expect(try tap("new", from: "198.51.100.3") == 302)
    }

    @Test func aLinkFortyAppGetsAFirebaseLinksDeepLinkWhereItRoutes() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let project = try app.createProject("Shop", extra: #","ios_bundle_id":"com.example.shop","web_url":"https://shop.example/""#)
        let (projectID, key) = (try #require(project["id"] as? String), try #require(project["api_key"] as? String))
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/domains", json: #"{"domain":"shop.page.link"}"#).status == 201)
        let tap = try app.request(
            "GET", "/?link=\(Self.deepLink)&ibi=com.example.shop&ius=shopapp", adminKey: nil,
            headers: ["User-Agent": Self.iPhone, "X-Forwarded-For": "198.51.100.44"], host: "shop.page.link")
        #expect(tap.status == 200)
        try app.settle()
        let installed = try app.request(
            "POST", "/api/sdk/v1/install",
            json: #"{"userAgent":"Shop/1.0 iOS/17.4","platform":"iOS","platformVersion":"17.4"}"#, adminKey: key,
            headers: ["X-Forwarded-For": "198.51.100.44"])
        let data = try #require(installed.json?["deepLinkData"] as? [String: Any], "\(installed.bodyText)")
        #expect(data["iosUrl"] as? String == "https://shop.example/product/42?color=red", "\(data)")
        #expect(data["androidUrl"] as? String == "https://shop.example/product/42?color=red")
        #expect(data["deepLinkPath"] as? String == "/product/42" && data["appScheme"] as? String == "shopapp")
        #expect((data["customParameters"] as? [String: String])?["color"] == "red", "\(data)")
    }

    @Test func eachDeviceLandsWhereFDLsRulesSay() throws {
        let (app, project) = try Self.app()
        let full =
            "link=\(Self.deepLink)&apn=com.example.shop&ibi=com.example.shop&isi=123456&ius=shopapp&ofl=https%3A%2F%2Fshop.example%2Fdesktop&at=11l&ct=spring&utm_source=mail&utm_campaign=spring"
        // Desktop: ofl, with the link's UTM.
        let desktop = try tap(app, full, agent: Self.desktop)
        #expect(
            desktop.status == 302 && desktop.header("Location")?.hasPrefix("https://shop.example/desktop?utm_source=mail") == true,
            "\(desktop.header("Location") ?? "")")
        // iPhone: the opening page tries the app's scheme, then the App Store with the analytics tokens.
        let iPhone = try tap(app, full, agent: Self.iPhone)
        #expect(iPhone.status == 200)
        #expect(iPhone.bodyText.contains("https://apps.apple.com/app/id123456?at=11l&amp;ct=spring"), "\(iPhone.bodyText)")
        #expect(iPhone.bodyText.contains("shopapp://google/link/?deep_link_id=https%3A%2F%2Fshop.example%2Fproduct%2F42"))
        // efr=1: straight to the store, no page.
        let forced = try tap(app, full + "&efr=1", agent: Self.iPhone)
        #expect(forced.status == 302 && forced.header("Location")?.hasPrefix("https://apps.apple.com/app/id123456") == true)
        // Android: the Play Store page of apn, carrying the click id back through the install referrer.
        let android = try tap(app, full + "&efr=1", agent: Self.android)
        let location = try #require(android.header("Location"))
        #expect(
            location.hasPrefix("https://play.google.com/store/apps/details?id=com.example.shop") && location.contains("click_id%3D"), "\(location)")
        // ifl / afl / ipfl win over the stores.
        let fallbacks =
            "link=\(Self.deepLink)&ibi=com.example.shop&ifl=https%3A%2F%2Fshop.example%2Fios&ipfl=https%3A%2F%2Fshop.example%2Fipad&apn=com.example.shop&afl=https%3A%2F%2Fshop.example%2Fandroid&efr=1"
        #expect(try tap(app, fallbacks, agent: Self.iPhone).header("Location")?.hasPrefix("https://shop.example/ios") == true)
        #expect(try tap(app, fallbacks, agent: Self.iPad).header("Location")?.hasPrefix("https://shop.example/ipad") == true)
        #expect(try tap(app, fallbacks, agent: Self.android).header("Location")?.hasPrefix("https://shop.example/android") == true)
        // No app named, no fallback: the deep link itself.
        #expect(
            try tap(app, "link=\(Self.deepLink)&efr=1", agent: Self.desktop).header("Location")?.hasPrefix(
                "https://shop.example/product/42?color=red") == true)

        // Every tap was a click on the long link's own link row, grouped by its `link`.
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks") == 8)
        #expect(try app.count("SELECT count(DISTINCT link_id) FROM clicks") == 4)
        #expect(try app.count("SELECT count(*) FROM links WHERE title LIKE 'Long link: https://shop.example/product/42%'") == 4)
        // What the per-domain cap of long links counts: the domain's `fdl…` codes of the project.
        #expect(try app.store.links.count(projectID: project, domain: "shop.page.link", codePrefix: "fdl") == 4)
        #expect(try app.store.links.count(projectID: project, domain: "other.page.link", codePrefix: "fdl") == 0)
    }

    @Test func badLongLinksAre4xxNamingTheParameter() throws {
        let (app, _) = try Self.app()
        let missing = try tap(app, "apn=com.example.shop", agent: Self.desktop)
        // Without `link` it is no long link: the server's own root (the dashboard).
        #expect(missing.status == 302 && missing.header("Location") == "/dashboard/")
        let badURL = try tap(app, "link=javascript%3Aalert(1)", agent: Self.desktop)
        #expect(badURL.status == 422 && badURL.bodyText.contains("link"), "\(badURL.bodyText)")
        let otherApp = try tap(app, "link=\(Self.deepLink)&apn=com.evil.app", agent: Self.desktop)
        #expect(otherApp.status == 422 && otherApp.bodyText.contains("apn"), "\(otherApp.bodyText)")
        #expect(try app.count("SELECT count(*) FROM links") == 0)
        // On a host that is no project's domain, /?link= is not served as a long link.
        #expect(try app.request("GET", "/?link=\(Self.deepLink)", adminKey: nil).status == 302)
    }

    @Test func theDebugPageExplainsWithoutRecordingAClick() throws {
        let (app, _) = try Self.app()
        let page = try tap(
            app, "link=\(Self.deepLink)&ibi=com.example.shop&isi=123456&ofl=https%3A%2F%2Fshop.example%2Fdesktop&d=1", agent: Self.iPhone)
        #expect(page.status == 200 && page.bodyText.contains("How this link resolves"))
        #expect(page.bodyText.contains("redirected (302) to https://shop.example/desktop"), "\(page.bodyText)")
        #expect(page.bodyText.contains("https://apps.apple.com/app/id123456"))
        // And on a short link too.
        #expect(try app.request("GET", "/dashboard-less?d=1", adminKey: nil).status == 404)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks") == 0)
    }
}
