import Foundation
import TestSupport
import Testing

@testable import API

/// The dashboard finishes a project's setup on its own: the app ids that `/.well-known` serves,
/// a sandbox from the New project form, a Get started list that fits every SDK family and can be
/// hidden, and money charts that show every currency.
@Suite struct DashboardSetupTests {
    static let fingerprintA = Array(repeating: "AB", count: 32).joined(separator: ":")
    static let fingerprintB = Array(repeating: "CD", count: 32).joined(separator: ":")

    @Test func theSettingsPageSetsTheAppIdsThatWellKnownServes() throws {
        let app = try TestApp()
        let projectID = try #require(try app.createProject("Shop")["id"] as? String)
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        #expect(try browser.get(settings).bodyText.contains(#"<textarea name="android_sha256""#))
        let saved = try browser.submit(
            from: settings, to: settings + "/project",
            [
                ("ios_team_id", "ABCDE12345"), ("ios_bundle_id", "com.shop.app"), ("android_package", "com.shop.app"),
                ("android_sha256", "\(Self.fingerprintA)\r\n\(Self.fingerprintB)\r\n"),
            ])
        #expect(saved.status == 200 && saved.bodyText.contains("Settings saved."), "\(saved.status) \(saved.bodyText.prefix(3000))")
        let aasa = try app.request("GET", "/.well-known/apple-app-site-association", adminKey: nil)
        #expect(aasa.bodyText.contains("ABCDE12345.com.shop.app"), "\(aasa.bodyText)")
        let assetLinks = try app.request("GET", "/.well-known/assetlinks.json", adminKey: nil).bodyText
        #expect(assetLinks.contains(Self.fingerprintA) && assetLinks.contains(Self.fingerprintB) && assetLinks.contains(#""com.shop.app""#))
        // Shown back one per line; emptied, the list is cleared.
        #expect(try browser.get(settings).bodyText.contains("\(Self.fingerprintA)\n\(Self.fingerprintB)</textarea>"))
        let refused = try browser.submit(from: settings, to: settings + "/project", [("ios_team_id", "short")])
        #expect(refused.status == 422 && refused.bodyText.contains("must be 10 upper-case letters or digits"))
        let cleared = try browser.submit(from: settings, to: settings + "/project", [("android_sha256", "")])
        #expect(cleared.status == 200)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)").json?["android_sha256"] as? [String] == [])
    }

    @Test func theNewProjectFormsTestModeBoxMakesASandbox() throws {
        let app = try TestApp()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        #expect(try browser.get("/").bodyText.contains(#"<input type="checkbox" name="test_mode" value="1">"#))
        let made = try browser.submit(from: "/", to: "/projects", [("name", "Sandbox"), ("test_mode", "1")])
        #expect(made.status == 201)
        let plain = try browser.submit(from: "/", to: "/projects", [("name", "Live")])
        #expect(plain.status == 201)
        let listed = try #require(try app.request("GET", "/admin/v1/projects").jsonArray)
        #expect(listed.first { $0["name"] as? String == "Sandbox" }?["test_mode"] as? Bool == true)
        #expect(listed.first { $0["name"] as? String == "Live" }?["test_mode"] as? Bool == false)
    }

    /// LinkForty's SDK has no payment call: an event with an amount is the project's first revenue.
    @Test func anEventWithAnAmountTicksTheRevenueStepAndTheListCanBeHidden() throws {
        let app = try TestApp()
        let (projectID, apiKey, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let overview = "/projects/\(projectID)"
        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone])
        let installed = try app.request(
            "POST", "/api/sdk/v1/install",
            json: #"{"userAgent":"Shop/1.0 iOS/17.4","platform":"iOS","platformVersion":"17.4","deviceId":"setup-device"}"#, adminKey: apiKey)
        let installID = try #require(installed.json?["installId"] as? String)
        let event = try app.request(
            "POST", "/api/sdk/v1/event",
            json: #"{"installId":"\#(installID)","eventName":"purchase","eventData":{"revenue":12.5,"currency":"EUR"}}"#, adminKey: apiKey)
        #expect(event.status == 200, "\(event.bodyText)")
        try app.settle()
        var page = try browser.get(overview).bodyText
        // Every step done in the period on screen: the list goes away without a payment call.
        #expect(!page.contains("Get started"))
        // A EUR amount in a USD project: a chart of its own beside the project's currency.
        #expect(page.contains("<span><i class=\"k1\"></i>Event values (EUR)</span>") && page.contains("Payments (USD)"))
        #expect(page.contains("Event values EUR: 12.5"))

        // Another project, nothing yet: the list shows, and hiding it is remembered by this browser.
        let other = try #require(try app.createProject("Other")["id"] as? String)
        page = try browser.get("/projects/\(other)").bodyText
        #expect(page.contains("○ A first revenue: a captured payment (Linkrunner SDKs), or an event with an amount"))
        let hidden = try browser.submit(from: "/projects/\(other)", to: "/projects/\(other)/getting-started/hide", [])
        #expect(hidden.status == 303)
        let cookie = try #require(hidden.header("Set-Cookie"))
        #expect(cookie.hasPrefix("attributiond_get_started=hidden; Path=/dashboard/projects/\(other);") && cookie.contains("HttpOnly"))
        let again = try browser.get("/projects/\(other)", otherCookies: "attributiond_get_started=hidden")
        #expect(!again.bodyText.contains("Get started") && again.bodyText.contains("Funnel"))
    }

    @Test func theNewLinkFormShowsWhatMostLinksNeedAndFoldsTheRest() throws {
        let app = try TestApp()
        let (projectID, _, link) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let links = "/projects/\(projectID)/links"
        let page = try browser.get(links).bodyText
        let form = String(page[try #require(page.range(of: "<h2>New link</h2>")).upperBound...])
        let folded = try #require(form.range(of: "<details"))
        for name in ["original_url", "short_code", "app_scheme", "deep_link_path", "param_key_0", "title"] {
            #expect(form.range(of: #"name="\#(name)""#).map { $0.lowerBound < folded.lowerBound } == true, "\(name) is not among the first fields")
        }
        for name in ["ios_url", "utm_source", "og_title", "targeting", "password", "rule_url_0", "variant_url_0", "append_click_id"] {
            #expect(form.range(of: #"name="\#(name)""#).map { $0.lowerBound > folded.lowerBound } == true, "\(name) is not folded")
        }
        #expect(!form.contains("<details open>"))
        #expect(form.contains("The destination URL is the last fallback for all."))
        // The list: the short URL with its host, and the day the link was made.
        #expect(page.contains(#"<span class="muted">test/</span>summer</a>"#))
        // Editing a link with UTM values: that section opens; a refused value opens its section.
        let detail = try browser.get("\(links)/\(try #require(link["id"] as? String))").bodyText
        #expect(detail.contains("<details open><summary>UTM parameters</summary>"))
        #expect(!detail.contains("<details open><summary>Password</summary>"))
        let refused = try browser.submit(from: links, to: links, [("original_url", "https://shop.example.com/"), ("max_clicks", "-5")])
        #expect(refused.status == 422)
        #expect(refused.bodyText.contains("<details open><summary>Targeting, limits and expiry</summary>"), "\(refused.bodyText.prefix(3000))")
    }

    @Test func aDisabledLinksPageNamesTheProjectAndOffersItsStoresAndWebsite() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"retired","active":false}"#).status == 201)
        let page = try app.request("GET", "/retired", adminKey: nil, headers: ["User-Agent": safariIPhone])
        #expect(page.status == 404)
        #expect(page.bodyText.contains(#"<p class="project">Shop</p><h1>Link not found</h1>"#))
        #expect(page.bodyText.contains(#"<a href="https://apps.apple.com/app/id123">Get it on the App Store</a>"#))
        #expect(page.bodyText.contains(#"<a href="https://shop.example.com/">Visit the website</a>"#))
        #expect(page.header("Content-Security-Policy")?.hasPrefix("default-src 'none'; style-src 'unsafe-inline'") == true)
        // A code no project has, on the server's own name: the same page, without a project.
        let unknown = try app.request("GET", "/nosuch", adminKey: nil, headers: ["User-Agent": safariIPhone])
        #expect(unknown.status == 404 && unknown.bodyText.contains("<h1>Link not found</h1>") && !unknown.bodyText.contains("class=\"ways\""))
    }
}
