import Foundation
import TestSupport
import Testing

/// The settings page's domains: added and removed with the admin API's rules, each with the
/// `.well-known` files the project serves on it.
@Suite struct DashboardDomainTests {
    @Test func anAdminAddsAndRemovesADomainOnTheSettingsPage() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let other = try #require(try app.createProject("Other")["id"] as? String)
        #expect(try app.request("POST", "/admin/v1/projects/\(other)/domains", json: #"{"domain":"taken.example"}"#).status == 201)
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        let page = try browser.get(settings)
        #expect(page.bodyText.contains("No domain yet") && page.bodyText.contains("ABCDE12345.com.example.shop"))

        let added = try browser.submit(from: settings, to: settings + "/domains", [("domain", "Links.Shop.example")])
        #expect(added.status == 201 && added.bodyText.contains("Added links.shop.example"))
        #expect(try app.request("GET", "/tls/allowed?domain=links.shop.example", adminKey: nil).status == 200)
        let refused = try browser.submit(from: settings, to: settings + "/domains", [("domain", "*.shop.example")])
        #expect(refused.status == 422 && refused.bodyText.contains("wildcard"))
        let taken = try browser.submit(from: settings, to: settings + "/domains", [("domain", "taken.example")])
        #expect(taken.status == 409 && taken.bodyText.contains("already claimed"))

        #expect(try browser.get(settings).bodyText.contains("none (from the proxy, or not asked for yet)"))
        // The link form offers the domain, and a link made there lives on it.
        let links = "/projects/\(projectID)/links"
        #expect(try browser.get(links).bodyText.contains(#"<option value="links.shop.example">"#))
        let made = try browser.submit(
            from: links, to: links, [("short_code", "fall"), ("domain", "links.shop.example"), ("web_url", "https://shop.example.com/fall")])
        #expect(made.status == 303 || made.status == 201, "\(made.status) \(made.bodyText.prefix(300))")
        let link = try #require(
            try app.request("GET", "/admin/v1/projects/\(projectID)/links").jsonArray?.first { $0["short_code"] as? String == "fall" })
        #expect(link["domain"] as? String == "links.shop.example" && link["url"] as? String == "https://links.shop.example/fall")

        let domains = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/domains").json?["domains"] as? [[String: Any]])
        let id = try #require(domains.first?["id"] as? String)
        // One link lives there: the page says it stops working and asks for the name, typed.
        #expect(try browser.get(settings).bodyText.contains(#"aria-label="type the domain's name to confirm""#))
        let unconfirmed = try browser.submit(from: settings, to: "\(settings)/domains/\(id)/remove", [])
        #expect(unconfirmed.status == 409 && unconfirmed.bodyText.contains("1 link on links.shop.example stop working"), "\(unconfirmed.bodyText)")
        #expect(try app.request("GET", "/tls/allowed?domain=links.shop.example", adminKey: nil).status == 200)
        let wrong = try browser.submit(from: settings, to: "\(settings)/domains/\(id)/remove", [("confirm", "links.shop.exampl")])
        #expect(wrong.status == 409)
        let removed = try browser.submit(from: settings, to: "\(settings)/domains/\(id)/remove", [("confirm", "Links.Shop.Example")])
        #expect(removed.status == 303)
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code = 'fall'") == 0)
        #expect(try app.request("GET", "/tls/allowed?domain=links.shop.example", adminKey: nil).status == 404)
    }
}
