import Foundation
import TestSupport
import Testing

@testable import API
@testable import App

/// A tenant's brand domain is its own and no one else's: the server's own names cannot be claimed,
/// a name is matched however DNS spells it, and a name given up takes its links along.
@Suite struct DomainIsolationTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148"

    @Test func theServersOwnNamesAreNoProjectsToClaim() throws {
        let app = try TestApp(publicURL: "https://go.main.test", allowedHosts: ["test", "links.main.test:8443"])
        let project = try #require(try app.createProject("Claimant")["id"] as? String)
        for name in ["go.main.test", "GO.MAIN.TEST.", "links.main.test"] {
            let refused = try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"\#(name)"}"#)
            #expect(refused.status == 422 && refused.bodyText.contains("own host name"), "\(name): \(refused.status) \(refused.bodyText)")
        }
        #expect(try app.count("SELECT count(*) FROM project_domains") == 0)
        #expect(try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"links.claimant.test"}"#).status == 201)
    }

    @Test func aProjectClaimsAtMostTwentyDomains() throws {
        let app = try TestApp()
        let project = try #require(try app.createProject("Many")["id"] as? String)
        for index in 0..<20 {
            #expect(try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"d\#(index).many.test"}"#).status == 201)
        }
        let refused = try app.request("POST", "/admin/v1/projects/\(project)/domains", json: #"{"domain":"d20.many.test"}"#)
        #expect(refused.status == 422 && refused.bodyText.contains("20 domains"), "\(refused.bodyText)")
    }

    @Test func aTrailingDotOrAnAbsoluteTargetReachesTheClaimNotEveryProject() throws {
        let app = try TestApp()
        let (_, _) = try ProjectDomainTests.twoProjects(app)
        let agent = ["User-Agent": Self.iPhone]
        // News's domain-less link is not served on Shop's domain however the name is spelt.
        #expect(try app.request("GET", "/headline", adminKey: nil, headers: agent, host: "links.shop.test.").status == 404)
        #expect(try app.request("GET", "/headline", adminKey: nil, headers: agent, host: "LINKS.shop.test.:443").status == 404)
        #expect(try app.request("GET", "/summer", adminKey: nil, headers: agent, host: "links.shop.test.").status == 200)
        let aasa = try app.request("GET", "/.well-known/apple-app-site-association", adminKey: nil, host: "links.shop.test.")
        #expect(aasa.bodyText.contains("ABCDE12345") && !aasa.bodyText.contains("NEWS123456"), "\(aasa.bodyText)")
        // Hosts that are no authority at all are refused.
        for host in ["links..shop.test", "links.shop.test:", "links.shop.test:123456", "links.shop.test:99999", ".links.shop.test"] {
            #expect(try app.request("GET", "/headline", adminKey: nil, headers: agent, host: host).status == 400, "\(host)")
        }
        // An absolute-form target names the host, whatever Host says (RFC 9112 §3.2.2).
        let client = try RawClient(port: app.port)
        client.send(Array("GET http://links.shop.test/headline HTTP/1.1\r\nHost: test\r\nUser-Agent: \(Self.iPhone)\r\n\r\n".utf8))
        #expect(client.readResponse()?.status == 404)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE link_id IN (SELECT id FROM links WHERE short_code = 'headline')") == 0)
    }

    @Test func removingADomainWithLinksIsRefusedUntilForcedAndTakesThemAlong() throws {
        let app = try TestApp()
        let (shop, news) = try ProjectDomainTests.twoProjects(app)
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(shop)/links",
                json: #"{"short_code":"sale","web_url":"https://shop.example/sale","domain":"links.shop.test"}"#
            )
            .status == 201)
        let id = try #require(
            (try app.request("GET", "/admin/v1/projects/\(shop)/domains").json?["domains"] as? [[String: Any]])?.first?["id"] as? String)
        let refused = try app.request("DELETE", "/admin/v1/projects/\(shop)/domains/\(id)")
        #expect(refused.status == 409 && refused.bodyText.contains("1 link live on this domain"), "\(refused.status) \(refused.bodyText)")
        #expect(try app.count("SELECT count(*) FROM project_domains WHERE id = '\(id)'") == 1)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(shop)/domains/\(id)?force=maybe").status == 422)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(shop)/domains/\(id)?force=true").status == 204)
        #expect(try app.count("SELECT count(*) FROM links WHERE domain = 'links.shop.test'") == 0)
        // The next project to claim the name serves none of the first one's links, and may use the code.
        #expect(try app.request("POST", "/admin/v1/projects/\(news)/domains", json: #"{"domain":"links.shop.test"}"#).status == 201)
        #expect(try app.request("GET", "/sale", adminKey: nil, headers: ["User-Agent": Self.iPhone], host: "links.shop.test").status == 404)
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(news)/links",
                json: #"{"short_code":"sale","web_url":"https://news.example/","domain":"links.shop.test"}"#
            )
            .status == 201)
    }

    @Test func linksLeftOnANameByAnotherProjectNeverAnswerForTheClaimant() throws {
        let app = try TestApp()
        let (shop, news) = try ProjectDomainTests.twoProjects(app)
        // A link left on the name from before removals took links along, then the name claimed anew.
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(shop)/links",
                json: #"{"short_code":"left","web_url":"https://shop.example/","domain":"links.shop.test"}"#
            )
            .status == 201)
        _ = try app.run("DELETE FROM project_domains WHERE domain = 'links.shop.test'")
        app.services.app.domains.map.invalidate()
        #expect(try app.request("POST", "/admin/v1/projects/\(news)/domains", json: #"{"domain":"links.shop.test"}"#).status == 201)
        #expect(try app.request("GET", "/left", adminKey: nil, headers: ["User-Agent": Self.iPhone], host: "links.shop.test").status == 404)
    }
}
