import Foundation
import HTTP
import TestSupport
import Testing

@testable import API

/// Values that reach the dashboard from requests and the store are text on every page: a
/// project, a link, a domain, a webhook and an install whose names carry markup show it escaped,
/// never as elements. Every page of the route table is walked.
@Suite struct DashboardEscapingTests {
    static let marker = #"<b id="x">&'"#
    static let escaped = "&lt;b id=&quot;x&quot;&gt;&amp;&#39;"

    @Test func everyPageShowsStoredMarkupAsText() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let created = try app.request(
            "POST", "/admin/v1/projects",
            json: #"{"name":"Shop \#(Self.marker.replacingOccurrences(of: "\"", with: "\\\""))","web_url":"https://shop.example.com/"}"#)
        #expect(created.status == 201, "\(created.bodyText)")
        let projectID = try #require(created.json?["id"] as? String)
        let title = Self.marker.replacingOccurrences(of: "\"", with: "\\\"")
        let link = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/links",
            json: #"{"short_code":"summer","title":"\#(title)","utm":{"campaign":"\#(title)"},"deep_link_parameters":{"k":"\#(title)"}}"#)
        #expect(link.status == 201, "\(link.bodyText)")
        let linkID = try #require(link.json?["id"] as? String)
        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "Referer": "https://x.example/?q=<b>"])
        try app.settle()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        var pages = ["/", "/projects/\(projectID)/links/\(linkID)"]
        for route in DashboardRoutes.routes(app.services)
        where route.method == .get && route.path.hasPrefix("/projects/:id")
            && !route.path.dropFirst("/projects/:id".count).contains(":")
        {
            pages.append(route.path.replacingOccurrences(of: ":id", with: projectID))
        }
        var checked = 0
        for page in Set(pages) where !page.contains(":") {
            let response = try browser.get(page)
            guard response.status == 200, response.header("Content-Type")?.hasPrefix("text/html") == true else { continue }
            checked += 1
            #expect(!response.bodyText.contains(#"<b id="x">"#), "\(page) shows the markup as markup")
        }
        #expect(checked >= 10, "\(checked) pages checked")
        // Where the name shows, it shows escaped.
        let overview = try browser.get("/projects/\(projectID)").bodyText
        #expect(overview.contains("<h1>Shop \(Self.escaped)</h1>"))
        let detail = try browser.get("/projects/\(projectID)/links/\(linkID)").bodyText
        #expect(detail.contains(Self.escaped))
    }
}
