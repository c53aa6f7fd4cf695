import Foundation
import TestSupport
import Testing

/// Projects' own link domains through the admin API and the link host: the Host decides the
/// project, a name belongs to one project, and names are kept in the form DNS carries.
@Suite struct ProjectDomainTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"

    /// Two projects, each with a domain and a link: (shop, its link code, news, its link code).
    static func twoProjects(_ app: TestApp) throws -> (shop: String, news: String) {
        let shop = try app.projectWithLink().projectID
        let news = try #require(
            try app.createProject("News", extra: #","ios_team_id":"NEWS123456","ios_bundle_id":"com.example.news""#)["id"] as? String)
        #expect(
            try app.request("POST", "/admin/v1/projects/\(news)/links", json: #"{"short_code":"headline","web_url":"https://news.example/"}"#).status
                == 201)
        let added = try app.request("POST", "/admin/v1/projects/\(shop)/domains", json: #"{"domain":"Links.Shop.TEST"}"#)
        #expect(added.status == 201, "\(added.bodyText)")
        #expect(added.json?["domain"] as? String == "links.shop.test" && added.json?["status"] as? String == "active")
        #expect((added.json?["id"] as? String)?.hasPrefix("dom_") == true)
        #expect(try app.request("POST", "/admin/v1/projects/\(news)/domains", json: #"{"domain":"go.news.test"}"#).status == 201)
        return (shop, news)
    }

    @Test func theHostDecidesWhichProjectsLinksAreServed() throws {
        let app = try TestApp()
        _ = try Self.twoProjects(app)
        let agent = ["User-Agent": Self.iPhone]
        // Each domain serves its own project's link (an iPhone gets the page that opens the app), and
        // not the other's.
        #expect(try app.request("GET", "/summer", adminKey: nil, headers: agent, host: "links.shop.test").status == 200)
        // A preview fetcher's page names the link on its domain.
        let preview = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": "facebookexternalhit/1.1"], host: "links.shop.test")
        #expect(preview.bodyText.contains(#"og:url" content="https://links.shop.test/summer""#), "\(preview.bodyText)")
        #expect(try app.request("GET", "/headline", adminKey: nil, headers: agent, host: "links.shop.test").status == 404)
        #expect(try app.request("GET", "/headline", adminKey: nil, headers: agent, host: "go.news.test:443").status == 200)
        #expect(try app.request("GET", "/summer", adminKey: nil, headers: agent, host: "go.news.test").status == 404)
        // Any other Host serves every project, as before domains existed.
        #expect(try app.request("GET", "/summer", adminKey: nil, headers: agent).status == 200)
        #expect(try app.request("GET", "/headline", adminKey: nil, headers: agent).status == 200)
        // Only the clicks that were served are stored (the preview fetcher's as a bot's).
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks") == 5)
        // The QR code names the link on its domain, and is 404 on the other one.
        #expect(try app.request("GET", "/summer/qr?format=svg", adminKey: nil, host: "go.news.test").status == 404)
        #expect(try app.request("GET", "/summer/qr?format=svg", adminKey: nil, host: "links.shop.test").status == 200)
    }

    @Test func wellKnownFilesOnAProjectDomainListThatProjectsAppOnly() throws {
        let app = try TestApp()
        _ = try Self.twoProjects(app)
        let shop = try #require(try app.request("GET", "/.well-known/apple-app-site-association", adminKey: nil, host: "links.shop.test").bodyText)
        #expect(shop.contains("ABCDE12345.com.example.shop") && !shop.contains("NEWS123456"))
        let news = try #require(try app.request("GET", "/.well-known/apple-app-site-association", adminKey: nil, host: "go.news.test").bodyText)
        #expect(news.contains("NEWS123456.com.example.news") && !news.contains("ABCDE12345"))
        let everyone = try #require(try app.request("GET", "/.well-known/apple-app-site-association", adminKey: nil).bodyText)
        #expect(everyone.contains("ABCDE12345") && everyone.contains("NEWS123456"))
        // Neither project has an Android app: the file is 404 on a project domain.
        #expect(try app.request("GET", "/.well-known/assetlinks.json", adminKey: nil, host: "go.news.test").status == 404)
    }

    @Test func aNameBelongsToOneProjectAndIsRemovedOnce() throws {
        let app = try TestApp()
        let (shop, news) = try Self.twoProjects(app)
        let taken = try app.request("POST", "/admin/v1/projects/\(news)/domains", json: #"{"domain":"links.shop.test."}"#)
        #expect(taken.status == 409 && taken.bodyText.contains("links.shop.test"), "\(taken.status) \(taken.bodyText)")
        let listed = try #require(try app.request("GET", "/admin/v1/projects/\(shop)/domains").json?["domains"] as? [[String: Any]])
        #expect(listed.map { $0["domain"] as? String } == ["links.shop.test"])
        let id = try #require(listed.first?["id"] as? String)
        // Another project cannot remove it.
        #expect(try app.request("DELETE", "/admin/v1/projects/\(news)/domains/\(id)").status == 404)
        #expect(try app.request("GET", "/tls/allowed?domain=links.shop.test", adminKey: nil).status == 200)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(shop)/domains/\(id)").status == 204)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(shop)/domains/\(id)").status == 404)
        // Gone: the name serves every project again, and a proxy is told not to get a certificate.
        #expect(try app.request("GET", "/headline", adminKey: nil, headers: ["User-Agent": Self.iPhone], host: "links.shop.test").status == 200)
        #expect(try app.request("GET", "/tls/allowed?domain=links.shop.test", adminKey: nil).status == 404)
        #expect(try app.request("GET", "/tls/allowed?domain=go.news.test", adminKey: nil).status == 200)
        let missing = try app.request("GET", "/tls/allowed", adminKey: nil)
        #expect(missing.status == 422 && missing.bodyText.contains("domain"))
        // The name is free for another project.
        #expect(try app.request("POST", "/admin/v1/projects/\(news)/domains", json: #"{"domain":"links.shop.test"}"#).status == 201)
    }

    @Test(arguments: [
        (#"{"domain":"*.shop.test"}"#, "wildcard"),
        (#"{"domain":"10.0.0.1"}"#, "IP address"),
        (#"{"domain":"https://shop.test/"}"#, "bare host name"),
        (#"{"domain":"shop"}"#, "two labels"),
        (#"{}"#, "domain"),
        (#"{"domain":"shop.test","extra":1}"#, "extra"),
    ])
    func aNameThatCannotBeAHostIsA4xxNamingTheField(_ body: String, _ says: String) throws {
        let app = try TestApp()
        let project = try #require(try app.createProject()["id"] as? String)
        let refused = try app.request("POST", "/admin/v1/projects/\(project)/domains", json: body)
        #expect((400..<500).contains(refused.status) && refused.bodyText.contains(says), "\(refused.status) \(refused.bodyText)")
        #expect(try app.request("GET", "/admin/v1/projects/\(project)/domains").json?["domains"] as? [Any] != nil)
        #expect((try app.request("GET", "/admin/v1/projects/\(project)/domains").json?["domains"] as? [Any])?.isEmpty == true)
    }

    @Test func anInternationalNameIsStoredInItsPunycodeForm() throws {
        let app = try TestApp()
        let project = try #require(try app.createProject()["id"] as? String)
        let added = try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"bücher.example"}"#)
        #expect(added.status == 201 && added.json?["domain"] as? String == "xn--bcher-kva.example", "\(added.bodyText)")
        #expect(try app.request("GET", "/tls/allowed?domain=B%C3%BCcher.example", adminKey: nil).status == 200)
    }

    @Test func aLinkLivesOnItsDomainAndCodesAreUniquePerDomain() throws {
        let app = try TestApp()
        let (shop, news) = try Self.twoProjects(app)
        let desktop = ["User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0"]
        let onShop = try app.request(
            "POST", "/admin/v1/projects/\(shop)/links",
            json: #"{"short_code":"sale","domain":"LINKS.shop.test","web_url":"https://shop.example/sale"}"#)
        #expect(onShop.status == 201, "\(onShop.bodyText)")
        #expect(onShop.json?["domain"] as? String == "links.shop.test" && onShop.json?["url"] as? String == "https://links.shop.test/sale")
        // The same code on another domain is another link.
        let onNews = try app.request(
            "POST", "/admin/v1/projects/\(news)/links", json: #"{"short_code":"sale","domain":"go.news.test","web_url":"https://news.example/sale"}"#)
        #expect(onNews.status == 201, "\(onNews.bodyText)")
        let again = try app.request("POST", "/admin/v1/projects/\(shop)/links", json: #"{"short_code":"sale","domain":"links.shop.test"}"#)
        #expect(again.status == 409 && again.bodyText.contains("on links.shop.test"), "\(again.bodyText)")
        let foreign = try app.request("POST", "/admin/v1/projects/\(shop)/links", json: #"{"short_code":"other","domain":"go.news.test"}"#)
        #expect(foreign.status == 422 && foreign.bodyText.contains("domain"), "\(foreign.bodyText)")

        // Each domain sends its own link's taps on; elsewhere the code is no link.
        let shopTap = try app.request("GET", "/sale", adminKey: nil, headers: desktop, host: "links.shop.test")
        #expect(shopTap.status == 302 && shopTap.header("Location")?.hasPrefix("https://shop.example/sale") == true, "\(shopTap.status)")
        let newsTap = try app.request("GET", "/sale", adminKey: nil, headers: desktop, host: "go.news.test")
        #expect(newsTap.status == 302 && newsTap.header("Location")?.hasPrefix("https://news.example/sale") == true)
        #expect(try app.request("GET", "/sale", adminKey: nil, headers: desktop).status == 404)
        // A link with no domain is still served on its project's domain, and on any other Host.
        #expect(try app.request("GET", "/summer", adminKey: nil, headers: desktop, host: "links.shop.test").status == 302)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE link_id = '\(try #require(onShop.json?["id"] as? String))'") == 1)
    }

    @Test func sdkLinkAPIsCreateLinksOnAProjectDomain() throws {
        let app = try TestApp()
        let (shop, _) = try Self.twoProjects(app)
        let apiKey = try #require(try app.request("POST", "/admin/v1/projects/\(shop)/api-keys").json?["key"] as? String)
        let linkForty = try app.request(
            "POST", "/api/sdk/v1/links", json: #"{"customCode":"lf-sale","domain":"links.shop.test","webFallbackUrl":"https://shop.example/lf"}"#,
            adminKey: apiKey)
        #expect(linkForty.status == 201 && linkForty.json?["url"] as? String == "https://links.shop.test/lf-sale", "\(linkForty.bodyText)")
        let foreign = try app.request(
            "POST", "/api/sdk/v1/links", json: #"{"customCode":"lf-other","domain":"go.news.test"}"#, adminKey: apiKey)
        #expect((400..<500).contains(foreign.status) && foreign.bodyText.contains("domain"), "\(foreign.bodyText)")

        let warpKey = try app.warpLinkKey(shop)
        let warp = try app.warpLink(
            "POST", "/links", key: warpKey, json: #"{"destination_url":"https://shop.example/wl","domain":"links.shop.test"}"#)
        #expect(warp.status == 201, "\(warp.bodyText)")
        let url = try #require(warp.json?["url"] as? String)
        #expect(url.hasPrefix("https://links.shop.test/"), "\(url)")
        let code = String(url.dropFirst("https://links.shop.test/".count))
        let desktop = ["User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/126.0"]
        #expect(try app.request("GET", "/\(code)", adminKey: nil, headers: desktop, host: "links.shop.test").status == 302)
        #expect(try app.request("GET", "/\(code)", adminKey: nil, headers: desktop).status == 404)
        // WarpLink's SDK accepts links on the project's domains, and resolves a code on the domain it names.
        let validated = try app.warpLink("GET", "/sdk/validate", key: warpKey)
        #expect((validated.json?["domains"] as? [String])?.contains("links.shop.test") == true, "\(validated.bodyText)")
        let resolved = try app.warpLink("GET", "/links/resolve/\(code)?domain=links.shop.test", key: warpKey)
        #expect(resolved.status == 200 && resolved.bodyText.contains("https://shop.example/wl"), "\(resolved.bodyText)")
        // Without a domain named, the key's project's links on its domains answer too; never another's.
        #expect(try app.warpLink("GET", "/links/resolve/\(code)", key: warpKey).status == 200)
    }
}
