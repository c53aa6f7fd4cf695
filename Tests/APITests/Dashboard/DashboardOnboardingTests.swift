import Foundation
import TestSupport
import Testing

@testable import API

@Suite struct DashboardOnboardingTests {
    @Test func theChecklistTicksItselfAsTheFirstClickInstallEventAndPaymentArrive() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let overview = "/projects/\(projectID)"
        var page = try browser.get(overview).bodyText
        #expect(page.contains("<b>Get started</b>"))
        #expect(page.contains(#"<li class="done">✓ Project created</li>"#))
        #expect(page.contains(#"<li class="todo">○ A first click: <a href="/dashboard/projects/\#(projectID)/links">create a link</a>"#))

        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": "198.51.100.80"])
        #expect(try app.client("init", body("init", token: token)).status == 200)
        try app.settle()
        page = try browser.get(overview).bodyText
        #expect(page.contains(#"<li class="done">✓ A first click"#))
        #expect(page.contains(#"<li class="done">✓ A first install"#))
        #expect(page.contains(#"<li class="todo">○ A first event"#))

        let event =
            #"{"token":"\#(token)","platform":"IOS","install_instance_id":"IID-1","event_name":"purchase_initiated","event_data":{"amount":9.99},"time_since_app_install":30}"#
        #expect(try app.client("capture-event", event).status == 200)
        #expect(try app.client("capture-payment", body("capture-payment", token: token)).status == 200)
        try app.settle()
        page = try browser.get(overview).bodyText
        #expect(!page.contains("Get started"))  // every step done: the list goes away
    }

    @Test func theConnectPageShowsTheBaseURLTheSDKLinesAndTheWellKnownFilesAsServed() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        _ = try app.request(
            "PATCH", "/admin/v1/projects/\(projectID)",
            json:
                #"{"android_package":"com.example.shop","android_sha256":["14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"]}"#
        )
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = try browser.get("/projects/\(projectID)/connect").bodyText
        #expect(page.contains("Connect your app to Shop"))
        #expect(page.contains(#"LinkFortyConfig(baseURL: URL(string: "http://test")!, apiKey: "YOUR_API_KEY")"#))
        #expect(page.contains("<tr><th>Apple team id</th><td><code>ABCDE12345</code></td></tr>"))
        // The files exactly as the server serves them.
        let aasa = try app.request("GET", "/.well-known/apple-app-site-association", adminKey: nil)
        #expect(page.contains(Escape.html(aasa.bodyText)))
        let assetLinks = try app.request("GET", "/.well-known/assetlinks.json", adminKey: nil)
        #expect(assetLinks.status == 200)
        #expect(page.contains(Escape.html(assetLinks.bodyText)))
        // Empty states say what to do next.
        #expect(
            try browser.get("/projects/\(projectID)/installs").bodyText.contains(
                #"No installs yet: <a href="/dashboard/projects/\#(projectID)/connect">connect your app</a>"#))
    }
}
