import Attribution
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// What the funnel and the charts count: signups from every SDK family, events at their own time.
@Suite struct FunnelCountTests {
    private func totals(_ app: TestApp, _ projectID: String, since: Timestamp? = nil, until: Timestamp? = nil) throws -> [String: Any] {
        var path = "/admin/v1/projects/\(projectID)/stats"
        if let since, let until { path += "?since=\(since.iso8601)&until=\(until.iso8601)" }
        let response = try app.request("GET", path)
        #expect(response.status == 200, "\(response.bodyText)")
        return try #require(response.json?["totals"] as? [String: Any])
    }

    private func event(_ app: TestApp, key: String, installID: String, name: String, at time: Timestamp? = nil) throws {
        let timestamp = time.map { #","timestamp":"\#($0.iso8601)""# } ?? ""
        let response = try app.request(
            "POST", "/api/sdk/v1/event", json: #"{"installId":"\#(installID)","eventName":"\#(name)"\#(timestamp)}"#,
            adminKey: key)
        #expect(response.status == 200, "\(response.bodyText)")
    }

    @Test func aLinkFortySignupEventCountsItsInstallAsSignedUpOnce() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink()
        let installID = try #require(try app.install(ip: "203.0.113.70", key: key).json?["installId"] as? String)
        #expect(try totals(app, projectID)["signups"] as? Int == 0)
        try event(app, key: key, installID: installID, name: "signup")
        #expect(try totals(app, projectID)["signups"] as? Int == 1)
        // A second signup event, or another event, is still one signed-up install.
        try event(app, key: key, installID: installID, name: "signup")
        try event(app, key: key, installID: installID, name: "purchase")
        #expect(try totals(app, projectID)["signups"] as? Int == 1)
        #expect(try app.count("SELECT count(*) FROM installs WHERE signed_up") == 1)
        // The overview's funnel counts it, and says what it counts and how events are charted.
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let overview = try browser.get("/projects/\(projectID)").bodyText
        #expect(overview.contains(#"<tr><th>Signups</th><td class="n">1</td><td class="n">100%</td>"#))
        #expect(overview.contains("a <code>signup</code> event") && overview.contains("Events are charted at the time the app says"))
        // The install's signup events deleted by hand, then the rollups recounted: the signup goes.
        try app.run("DELETE FROM events WHERE install_id = ? AND name = 'signup'", installID)
        try app.store.rollups.rebuild(projectID: projectID, sinceHour: Int64.min / 2)
        #expect(try totals(app, projectID)["signups"] as? Int == 0)
        #expect(try app.count("SELECT count(*) FROM installs WHERE signed_up") == 0)
    }

    @Test func backdatedEventsAreChartedAtTheirOwnTimeInsideTheInstallsLifetime() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        let installID = try #require(try app.install(ip: "203.0.113.71", key: key).json?["installId"] as? String)
        let installedAt = try #require(
            try app.queryOne("SELECT created_at FROM installs WHERE id = ?", installID) { Timestamp(milliseconds: $0.int(0)) })
        let now = try app.advanceClock(projectID, seconds: 3 * 86_400)
        // Sent three days late from an offline queue: charted an hour after the install.
        try event(app, key: key, installID: installID, name: "level_complete", at: installedAt.adding(seconds: 3_600))
        // A clock that ran a day slow: not before the install.
        try event(app, key: key, installID: installID, name: "tutorial", at: installedAt.adding(seconds: -86_400))
        // A clock that runs an hour fast: not after the event arrived.
        try event(app, key: key, installID: installID, name: "open", at: now.adding(seconds: 3_600))
        let charted: [(String, Int64)] = try app.query("SELECT name, charted_at FROM events ORDER BY name") { ($0.string(0), $0.int(1)) }
        #expect(charted.map { $0.0 } == ["level_complete", "open", "tutorial"])
        // (ISO 8601 times carry whole seconds.)
        #expect(charted.map { $0.1 } == [installedAt.adding(seconds: 3_600).milliseconds / 1000 * 1000, now.milliseconds, installedAt.milliseconds])
        // Windows that are not whole hours read both the rollups and the raw rows.
        let firstTwoHours = try totals(app, projectID, since: installedAt.adding(seconds: -1), until: installedAt.adding(seconds: 2 * 3_600 + 7))
        #expect(firstTwoHours["events"] as? Int == 2)
        let lastHour = try totals(app, projectID, since: now.adding(seconds: -3_599), until: now.adding(seconds: 1))
        #expect(lastHour["events"] as? Int == 1)
        let between = try totals(app, projectID, since: installedAt.adding(seconds: 3 * 3_600), until: now.adding(seconds: -3_600))
        #expect(between["events"] as? Int == 0)
    }
}

/// An install with an event with revenue pays, as one with a payment does: LinkForty's and
/// WarpLink's SDKs have no payment call.
@Suite struct PayingInstallTests {
    @Test func anEventWithRevenueMakesItsInstallPayingOnce() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink()
        let installID = try #require(try app.install(ip: "203.0.113.72", key: key).json?["installId"] as? String)
        func paying() throws -> Int? {
            try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json.flatMap {
                ($0["totals"] as? [String: Any])?["paying_installs"] as? Int
            }
        }
        func event(_ json: String) throws {
            let response = try app.request("POST", "/api/sdk/v1/event", json: json, adminKey: key)
            #expect(response.status == 200, "\(response.bodyText)")
        }
        try event(#"{"installId":"\#(installID)","eventName":"open"}"#)
        #expect(try paying() == 0)
        try event(#"{"installId":"\#(installID)","eventName":"purchase","eventData":{"revenue":4.99,"currency":"EUR"}}"#)
        try event(#"{"installId":"\#(installID)","eventName":"purchase","eventData":{"revenue":1.5,"currency":"EUR"}}"#)
        #expect(try paying() == 1)
        // Erasing the install takes it back.
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(installID)").status == 204)
        #expect(try paying() == 0)
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
    }
}

extension PayingInstallTests {
    /// The install's "has an event with revenue" flag (migration 0043) is set by its first such
    /// event only; a hand edit that leaves it wrong is found by `rollups check` and put right by
    /// `rollups rebuild`, after which the next event counts as the rows say.
    @Test func theRevenueFlagIsSetOnceAndRebuiltAfterAHandEdit() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink()
        let installID = try #require(try app.install(ip: "203.0.113.73", key: key).json?["installId"] as? String)
        func event(_ json: String) throws {
            let response = try app.request("POST", "/api/sdk/v1/event", json: json, adminKey: key)
            #expect(response.status == 200, "\(response.bodyText)")
        }
        func flag() throws -> Int64 { try app.count("SELECT count(*) FROM installs WHERE id = '\(installID)' AND has_revenue_event") }
        try event(#"{"installId":"\#(installID)","eventName":"open"}"#)
        #expect(try flag() == 0)
        try event(#"{"installId":"\#(installID)","eventName":"purchase","eventData":{"revenue":4.99,"currency":"EUR"}}"#)
        #expect(try flag() == 1)
        // The revenue events deleted by hand: the flag is stale until a rebuild.
        try app.run("DELETE FROM events WHERE install_id = ? AND revenue IS NOT NULL", installID)
        let check = try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 10)
        #expect(check.lines.contains { $0.contains("1 with has_revenue_event") }, "\(check.lines)")
        try app.store.rollups.rebuild(projectID: projectID, sinceHour: Int64.min / 2)
        #expect(try flag() == 0)
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
        // Paying again with the next revenue event, as a recount says.
        try event(#"{"installId":"\#(installID)","eventName":"purchase","eventData":{"revenue":2,"currency":"EUR"}}"#)
        #expect(try flag() == 1)
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
    }

    /// A user's revenue event erased from an install that stays: the install's flag goes with it,
    /// so it no longer pays, and its next revenue event makes it pay again.
    @Test func erasingAUsersRevenueEventClearsTheInstallsFlag() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        func paying() throws -> Int? {
            try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json.flatMap {
                ($0["totals"] as? [String: Any])?["paying_installs"] as? Int
            }
        }
        func flagged() throws -> Int64 { try app.count("SELECT count(*) FROM installs WHERE project_id = '\(projectID)' AND has_revenue_event") }
        func purchase(_ user: String) throws {
            let extra = #","user_id":"\#(user)","event_name":"purchase","event_data":{"amount":2,"currency":"EUR"}"#
            #expect(try app.client("capture-event", body("fields", token: token, extra: extra)).status == 200)
        }
        #expect(try app.client("init", body("init", token: token)).status == 200)
        try purchase("u-gone")
        #expect(try flagged() == 1 && paying() == 1)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/users/u-gone").status == 204)
        #expect(try app.count("SELECT count(*) FROM installs WHERE project_id = '\(projectID)'") == 1, "the install stays")
        #expect(try flagged() == 0 && paying() == 0)
        try purchase("u-new")
        #expect(try flagged() == 1 && paying() == 1)
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
    }

    @Test func aPaymentThenARevenueEventPayOnce() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        func paying() throws -> Int? {
            try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json.flatMap {
                ($0["totals"] as? [String: Any])?["paying_installs"] as? Int
            }
        }
        #expect(try app.client("init", body("init", token: token)).status == 200)
        #expect(try app.client("capture-payment", body("fields", token: token, extra: #","user_id":"u","amount":3,"payment_id":"p1""#)).status == 200)
        #expect(try paying() == 1)
        #expect(
            try app.client(
                "capture-event", body("fields", token: token, extra: #","event_name":"purchase","event_data":{"amount":2,"currency":"EUR"}"#)
            )
            .status == 200)
        #expect(try paying() == 1)
        #expect(
            try app.client("remove-captured-payment", body("fields", token: token, extra: #","user_id":"u","payment_id":"p1""#)).status == 200)
        #expect(try paying() == 1, "the revenue event still makes it pay")
        #expect(try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 5).differing == 0)
    }
}
