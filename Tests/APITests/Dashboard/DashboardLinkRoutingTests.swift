import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@_spi(StoreInternals) @testable import Store

@Suite struct DashboardLinkRoutingTests {
    @Test func rulesVariantsAndAPasswordAreEditedAsPlainFields() throws {
        let app = try TestApp()
        let (projectID, _, link) = try app.projectWithLink()
        let linkID = try #require(link["id"] as? String)
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = "/projects/\(projectID)/links/\(linkID)"
        let form = try browser.get(page).bodyText
        #expect(form.contains(#"name="rule_url_0""#) && form.contains(#"name="rule_url_1""#) && !form.contains(#"name="rule_url_2""#))
        #expect(form.contains(#"name="variant_url_0""#) && form.contains(#"name="expired_url""#) && form.contains(#"name="password""#))
        #expect(!form.contains("<textarea name=\"rules\""))  // no JSON to type for rules or variants

        let saved = try browser.submit(
            from: page, to: page,
            [
                ("short_code", "summer"), ("active", "0"), ("active", "1"), ("append_click_id", "0"),
                ("rule_url_0", "https://shop.example.com/de"), ("rule_platform_0", "ios"), ("rule_platform_0", "android"),
                ("rule_country_0", "de, at"), ("rule_os_min_0", "15"),
                ("rule_url_1", ""), ("rule_country_1", "FR"),  // no URL: no rule
                ("rule_url_2", "https://shop.example.com/everyone"),
                ("variant_name_0", "red"), ("variant_url_0", "https://shop.example.com/red"), ("variant_weight_0", "3"),
                ("variant_url_1", "https://shop.example.com/blue"),
                ("expired_url", "https://shop.example.com/over"), ("password", "letmein"), ("in_app_escape", "0"),
            ])
        #expect(saved.status == 200, "\(saved.bodyText)")
        #expect(saved.bodyText.contains("Saved."))
        let stored = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/links/\(linkID)").json)
        let rules = try #require(stored["rules"] as? [[String: Any]])
        #expect(rules.count == 2)
        let first = try #require(rules.first?["when"] as? [String: Any])
        #expect(first["platform"] as? [String] == ["ios", "android"])
        #expect(first["country"] as? [String] == ["DE", "AT"])
        #expect((first["os_version"] as? [String: Any])?["min"] as? String == "15")
        #expect((rules.last?["when"] as? [String: Any])?.isEmpty == true)
        let variants = try #require(stored["variants"] as? [[String: Any]])
        #expect(variants.map { $0["name"] as? String } == ["red", "B"])
        #expect(variants.map { $0["weight"] as? Int } == [3, 1])
        #expect(stored["expired_url"] as? String == "https://shop.example.com/over")
        #expect(stored["has_password"] as? Bool == true)
        #expect(stored["in_app_escape"] as? Bool == false)

        // The page shows them back as fields, with two empty rows to add with, and the split's table.
        let again = try browser.get(page).bodyText
        #expect(again.contains(#"name="rule_country_0" value="DE, AT""#))
        #expect(again.contains(#"name="rule_platform_0" value="android" checked"#))
        #expect(again.contains(#"name="rule_url_3""#) && !again.contains(#"name="rule_url_4""#))
        #expect(again.contains(#"name="variant_weight_0" inputmode="numeric" value="3""#))
        #expect(again.contains("A/B split (30 days)"))
        #expect(again.contains("Remove the password"))
        #expect(!again.contains("letmein"))

        // A bad value is refused naming it, and nothing changes.
        let refused = try browser.submit(
            from: page, to: page, [("short_code", "summer"), ("rule_url_0", "https://shop.example.com/de"), ("rule_country_0", "Germany")])
        #expect(refused.status == 422)
        #expect(refused.bodyText.contains("Routing rule 1, country: \(Escape.html("'Germany' is not a two-letter country code"))"))
        #expect((try app.request("GET", "/admin/v1/projects/\(projectID)/links/\(linkID)").json?["rules"] as? [Any])?.count == 2)

        // Emptying the rows removes the rules and the split; the password stays unless removed.
        let emptied = try browser.submit(
            from: page, to: page, [("short_code", "summer"), ("rule_url_0", ""), ("variant_url_0", ""), ("remove_password", "1")])
        #expect(emptied.status == 200)
        let after = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/links/\(linkID)").json)
        #expect((after["rules"] as? [Any])?.isEmpty == true)
        #expect((after["variants"] as? [Any])?.isEmpty == true)
        #expect(after["has_password"] as? Bool == false)
    }

    @Test func theLinksPageBreaksItsClicksDownByCountry() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], countries: TapCountries(header: "CF-IPCountry"))
        let (projectID, _, link) = try app.projectWithLink()
        let linkID = try #require(link["id"] as? String)
        for country in ["DE", "DE", "FR", "XX"] {
            _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "CF-IPCountry": country])
        }
        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": "Googlebot/2.1", "CF-IPCountry": "US"])
        try app.settle()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = try browser.get("/projects/\(projectID)/links/\(linkID)").bodyText
        #expect(page.contains("By country (30 days)"))
        #expect(page.contains(#"<tr><td>DE</td><td class="n">2</td><td class="n">67%</td><td class="n">0</td></tr>"#), "\(page)")
        #expect(page.contains(#"<tr><td>FR</td><td class="n">1</td><td class="n">33%</td><td class="n">0</td></tr>"#))
        #expect(!page.contains("<td>US</td>"))  // a crawler is not a visitor
    }

    @Test func theLinksListShowsEachLinksClicksAndInstallsAndACopyButton() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        for _ in 0..<3 { _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone]) }
        try app.settle()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let list = try browser.get("/projects/\(projectID)/links").bodyText
        #expect(list.contains(#"<td class="n">3</td><td class="n">0</td>"#), "\(list)")
        #expect(list.contains(#"<button type="button" data-copy="http://test/summer" hidden>Copy</button>"#))
        #expect(list.contains(DashboardPage.narrowNote.markup))  // its table leaves columns out on a phone
        #expect(!(try browser.get("/projects/\(projectID)/settings").bodyText.contains(DashboardPage.narrowNote.markup)))
    }
}
