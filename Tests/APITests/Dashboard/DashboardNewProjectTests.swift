import Foundation
import TestSupport
import Testing

/// A project made from the dashboard, and the page that connects an app to it.
@Suite struct DashboardNewProjectTests {
    @Test func aServerAdminMakesAProjectAndSeesHowToConnectAnApp() throws {
        let app = try TestApp()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let home = try browser.get("/")
        #expect(home.bodyText.contains("No projects yet: create one below") && home.bodyText.contains("New project"))
        let made = try browser.submit(from: "/", to: "/projects", [("name", "Shop"), ("ios_store_url", "https://apps.apple.com/app/id123")])
        #expect(made.status == 201, "\(made.bodyText.prefix(400))")
        let page = made.bodyText
        let keyStart = try #require(page.range(of: "<th>API key</th><td><code>"))
        let key = String(page[keyStart.upperBound...].prefix { $0 != "<" })
        #expect(key.hasPrefix("ak_") && page.contains("LinkFortyConfig(baseURL:") && page.contains("WarpLinkOptions(apiEndpoint:"))
        // The key works at once, and the project has what the form said.
        #expect(try app.request("GET", "/api/links", adminKey: key).status == 200)
        let projects = try #require(try app.request("GET", "/admin/v1/projects").jsonArray)
        #expect(projects.first?["name"] as? String == "Shop" && projects.first?["ios_store_url"] as? String == "https://apps.apple.com/app/id123")
        // Refusals say what is wrong in the form's words.
        let bad = try browser.submit(from: "/", to: "/projects", [("name", "Other"), ("web_url", "ftp://nope")])
        #expect(bad.status == 422 && bad.bodyText.contains("Website"), "\(bad.bodyText.prefix(400))")
        #expect(try app.count("SELECT count(*) FROM projects") == 1)
    }
}

/// The settings page's switch for leading taps out of in-app browsers.
@Suite struct DashboardInAppEscapeTests {
    @Test func theSettingsPageTurnsTheEscapeOffAndOn() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        #expect(try browser.get(settings).bodyText.contains(#"name="in_app_escape" value="1" checked"#))
        let off = try browser.submit(from: settings, to: settings + "/project", [("in_app_escape", "0")])
        #expect(off.status == 200 && off.bodyText.contains("Settings saved."), "\(off.bodyText.prefix(300))")
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)").json?["in_app_escape"] as? Bool == false)
        #expect(!(try browser.get(settings).bodyText.contains(#"name="in_app_escape" value="1" checked"#)))
        let on = try browser.submit(from: settings, to: settings + "/project", [("in_app_escape", "0"), ("in_app_escape", "1")])
        #expect(on.status == 200)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)").json?["in_app_escape"] as? Bool == true)
    }
}
