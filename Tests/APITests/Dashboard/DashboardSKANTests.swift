import Foundation
import TestSupport
import Testing

/// The App Store id Apple's copies are matched on, set from the settings page, and the SKAN page
/// that shows what arrived.
@Suite struct DashboardSKANTests {
    @Test func theSettingsPageSetsTheAppStoreIDAndTheSKANPageShowsTheCopies() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        let saved = try browser.submit(from: settings, to: settings + "/project", [("ios_app_store_id", "525463029")])
        #expect(saved.status == 200, "\(saved.bodyText.prefix(400))")
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)").json?["app_store_id"] as? Int == 525_463_029)
        let bad = try browser.submit(from: settings, to: settings + "/project", [("ios_app_store_id", "-1")])
        #expect(bad.status == 422 && bad.bodyText.contains("ios_app_store_id-error"), "\(bad.bodyText.prefix(600))")

        let empty = try browser.get("/projects/\(projectID)/skan")
        #expect(empty.bodyText.contains("No postbacks in this period") && empty.bodyText.contains("App Store id 525463029"))
        #expect(try ApplePostbackTests.post(app, ApplePostbackTests.skanPath, ApplePostbackVectors.skan4High).status == 200)
        let page = try browser.get("/projects/\(projectID)/skan").bodyText
        #expect(page.contains("<td>com.example</td><td>5239</td><td>days 0–2</td>"), "\(page)")
        // No domain and no public_url: it says to add one, and shows no placeholder to paste.
        #expect(page.contains("add one to the project in Settings") && !page.contains("https://example.com"), "\(page)")
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/domains", json: #"{"domain":"links.shop.test"}"#).status == 201)
        let withDomain = try browser.get("/projects/\(projectID)/skan").bodyText
        #expect(
            withDomain.contains("NSAdvertisingAttributionReportEndpoint") && withDomain.contains("&lt;string&gt;https://shop.test&lt;/string&gt;"))

        // Emptied, the id comes from the App Store URL again (id123 in this project's).
        _ = try browser.submit(from: settings, to: settings + "/project", [("ios_app_store_id", "")])
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)").json?["app_store_id"] as? Int == 123)
    }
}
