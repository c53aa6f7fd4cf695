import Foundation
import TestSupport
import Testing

@testable import API

/// The links page: each link's 30 days of money beside its clicks and installs, events' declared
/// amounts kept apart from captured payments.
@Suite struct DashboardLinkRevenueTests {
    @Test func aLinksRowShowsWhatItsInstallsEventsDeclared() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink()
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"quiet"}"#).status == 201)
        _ = try app.clickWithBeacon(ip: "198.51.100.61")
        let installID = try #require(try app.install(ip: "198.51.100.61", key: key).json?["installId"] as? String)
        for amount in ["9.99", "5"] {
            let event = try app.request(
                "POST", "/api/sdk/v1/event",
                json: #"{"installId":"\#(installID)","eventName":"purchase","eventData":{"revenue":\#(amount),"currency":"eur"}}"#,
                adminKey: key)
            #expect(event.status == 200)
        }
        try app.settle()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = try browser.get("/projects/\(projectID)/links").bodyText
        #expect(page.contains("<th class=\"n\">Revenue (30 d)</th>"))
        let summer = try #require(page.components(separatedBy: "<tr>").first { $0.contains(">summer</a>") })
        #expect(summer.contains(#"<span class="muted">events: EUR 14.99</span>"#), "\(summer)")
        #expect(summer.contains(#"<td class="n">1</td><td class="n">1</td>"#), "one click, one attributed install: \(summer)")
        // Its sparkline: 29 days without a click, then today's one at the top.
        #expect(summer.contains(#"<polyline points="1,26 5.1,26 "#) && summer.contains(#" 114.9,26 119,2""#), "\(summer)")
        let quiet = try #require(page.components(separatedBy: "<tr>").first { $0.contains(">quiet</a>") })
        #expect(quiet.contains(#"<td class="n">–</td>"#), "\(quiet)")
        #expect(quiet.contains(#" 119,26""#), "a flat line: \(quiet)")
    }
}
