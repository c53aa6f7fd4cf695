import Attribution
import Foundation
@_spi(StoreInternals) import PostgresStore
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

@testable import API

/// The breakdowns and cohorts pages (migration 0039's tallies) with numbers known in advance, on
/// either backend: what the triggers count as clicks, installs and events arrive, and take back
/// as events and installs are erased.
@Suite struct DashboardBreakdownTests {
    private static let android =
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"

    private func event(_ app: TestApp, key: String, installID: String, name: String, revenue: String? = nil, at time: Timestamp? = nil) throws {
        var body = #"{"installId":"\#(installID)","eventName":"\#(name)""#
        if let revenue { body += #","eventData":{"revenue":\#(revenue),"currency":"USD"}"# }
        if let time { body += #","timestamp":"\#(time.iso8601)""# }
        let response = try app.request("POST", "/api/sdk/v1/event", json: body + "}", adminKey: key)
        #expect(response.status == 200, "\(response.bodyText)")
    }

    /// The table rows of a page, tags and all, without the bars' SVG.
    private func rows(_ page: String) -> [String] {
        page.components(separatedBy: "<tr>").dropFirst().map { row in
            let cells = row.components(separatedBy: "</tr>")[0]
            guard let svg = cells.range(of: #"<td class="hide-narrow">"#) else { return cells }
            return String(cells[..<svg.lowerBound])
        }
    }

    /// What the writes counted equals a recount of the rows (`attributiond rollups check`).
    private func expectTalliesMatchRows(_ app: TestApp) throws {
        let check = try app.store.rollups.check(projectID: nil, sinceHour: Int64.min / 2, limit: 10)
        #expect(check.differing == 0, "\(check.lines)")
        #expect(try app.count("SELECT count(*) FROM rollup_tallies WHERE installs <> 0") > 0)
    }

    @Test func clicksInstallsAndEventsAreBrokenDownAndErasureTakesThemBack() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink()
        for (ip, referrer) in [("198.51.100.81", "https://WWW.Instagram.com/p/1?x=2"), ("198.51.100.82", "https://l.instagram.com/")] {
            let tap = try app.request(
                "GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": ip, "Referer": referrer])
            #expect(tap.status == 302 || tap.status == 200)
        }
        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": Self.android, "X-Forwarded-For": "198.51.100.83"])
        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": "Googlebot/2.1", "X-Forwarded-For": "198.51.100.84"])
        let clickID = try app.clickWithBeacon(ip: "198.51.100.85")
        let installed = try app.install(ip: "198.51.100.85", key: key)
        let installID = try #require(installed.json?["installId"] as? String)
        #expect(try app.queryOne("SELECT click_id FROM installs WHERE id = ?", installID) { $0.string(0) } == clickID)
        for (name, revenue) in [("purchase", "9.99"), ("purchase", "10"), ("open", nil)] {
            try event(app, key: key, installID: installID, name: name, revenue: revenue)
        }
        try app.settle()

        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let base = "/projects/\(projectID)/breakdowns?range=7d"
        let events = rows(try browser.get(base + "&by=events").bodyText)
        #expect(
            events.contains(
                #"<td>purchase</td><td class="n">2</td><td class="n">1</td><td class="n">USD 19.99</td><td class="n">new in this period</td>"#),
            "\(events)")
        #expect(events.contains { $0.hasPrefix(#"<td>open</td><td class="n">1</td><td class="n">1</td><td class="n">–</td>"#) }, "\(events)")
        let platforms = rows(try browser.get(base + "&by=platform").bodyText)
        #expect(platforms.contains { $0.hasPrefix(#"<td>iOS</td><td class="n">3</td><td class="n">1</td><td class="n">33%</td>"#) }, "\(platforms)")
        #expect(platforms.contains { $0.hasPrefix(#"<td>Android</td><td class="n">1</td><td class="n">0</td>"#) }, "\(platforms)")
        #expect(!platforms.contains { $0.contains("Bot") || $0.contains("bot") }, "bots are left out: \(platforms)")
        let systems = rows(try browser.get(base + "&by=os").bodyText)
        #expect(systems.contains { $0.hasPrefix(#"<td>iOS 17</td><td class="n">3</td><td class="n">1</td>"#) }, "\(systems)")
        let referrers = rows(try browser.get(base + "&by=referrer&sort=value").bodyText)
        #expect(
            referrers.dropFirst().map { String($0.prefix(while: { $0 != "/" })) } == [
                #"<td>Direct (no referrer)<"#, #"<td>instagram.com<"#, #"<td>l.instagram.com<"#,
            ], "sorted by name: \(referrers)")
        #expect(referrers.contains { $0.hasPrefix(#"<td>Direct (no referrer)</td><td class="n">2</td><td class="n">1</td>"#) }, "\(referrers)")
        #expect(referrers.contains { $0.hasPrefix(#"<td>instagram.com</td><td class="n">1</td><td class="n">0</td>"#) }, "\(referrers)")

        // An event removed by hand, then the rollups rebuilt: "first" moves to the next one; erasing
        // the install takes back the rest.
        try app.run("DELETE FROM events WHERE install_id = ? AND name = 'purchase' AND revenue = 9.99", installID)
        try app.store.rollups.rebuild(projectID: projectID, sinceHour: Int64.min / 2)
        try expectTalliesMatchRows(app)
        let after = rows(try browser.get(base + "&by=events").bodyText)
        #expect(
            after.contains { $0.hasPrefix(#"<td>purchase</td><td class="n">1</td><td class="n">1</td><td class="n">USD 10.00</td>"#) }, "\(after)")
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(installID)").status == 204)
        #expect(try browser.get(base + "&by=events").bodyText.contains("No events in this period yet"))
        let erased = rows(try browser.get(base + "&by=platform").bodyText)
        #expect(erased.contains { $0.hasPrefix(#"<td>iOS</td><td class="n">3</td><td class="n">0</td>"#) }, "the clicks stay: \(erased)")
        #expect(
            try app.count("SELECT count(*) FROM rollup_tallies WHERE dimension LIKE 'event%' AND installs <> 0") == 0,
            "nothing of the install's events is left in the tallies")
        #expect(try browser.get(base + "&by=nothing").status == 422)
    }

    @Test func aCohortTableHasTheNumbersOfItsInstallsDays() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        var installs: [(id: String, at: Timestamp)] = []
        for ip in ["203.0.113.91", "203.0.113.92", "203.0.113.93"] {
            let id = try #require(try app.install(ip: ip, key: key).json?["installId"] as? String)
            let at = try #require(try app.queryOne("SELECT created_at FROM installs WHERE id = ?", id) { Timestamp(milliseconds: $0.int(0)) })
            installs.append((id, at))
        }
        // Events come as the project's clock reaches them (a timestamp over 30 days old is refused).
        var now = try app.advanceClock(projectID, seconds: 0)
        func on(_ install: (id: String, at: Timestamp), day: Int, hour: Int64 = 1, _ name: String, revenue: String? = nil) throws {
            let at = install.at.adding(seconds: Int64(day) * 86_400 + hour * 3_600)
            if at > now { now = try app.advanceClock(projectID, seconds: Double(at.milliseconds - now.milliseconds) / 1000 + 1) }
            try event(app, key: key, installID: install.id, name: name, revenue: revenue, at: at)
        }
        try on(installs[0], day: 0, "signup")
        try on(installs[0], day: 1, "open")
        try on(installs[1], day: 1, "open")
        try on(installs[1], day: 1, hour: 5, "open")  // the same day twice: one active install
        try on(installs[0], day: 3, "open")
        try on(installs[0], day: 6, "purchase", revenue: "10")  // in the span of days 4-7
        try on(installs[2], day: 14, "open")
        // Sent late from an offline queue, an open from before the install's first one becomes its first.
        try on(installs[2], day: 0, "open")
        try app.advanceClock(projectID, seconds: 20 * 86_400)
        try app.settle()

        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let day = installs[0].at.iso8601.prefix(10)
        let base = "/projects/\(projectID)/cohorts?range=custom&from=\(day)&to=\(day)&group=day"
        func cohortRow(_ metric: String) throws -> String {
            let page = try browser.get(base + "&metric=\(metric)").bodyText
            return try #require(rows(page).first { $0.hasPrefix("<th>\(day)</th>") }, "\(page)")
        }
        #expect(
            try cohortRow("retention")
                == #"<th>\#(day)</th><td class="n">3</td><td class="n heat5">66.7 %</td><td class="n heat4">33.3 %</td><td class="n heat0">0.0 %</td><td class="n heat4">33.3 %</td><td class="n heat0">0.0 %</td>"#
        )
        let eventsRow = try cohortRow("events")
        #expect(
            eventsRow
                == #"<th>\#(day)</th><td class="n">3</td><td class="n">1.67</td><td class="n">2.00</td><td class="n">2.33</td><td class="n">2.67</td><td class="n">2.67</td>"#,
            "\(eventsRow)")
        #expect(
            try cohortRow("revenue")
                == #"<th>\#(day)</th><td class="n">3</td><td class="n">0</td><td class="n">0</td><td class="n">USD 3.3333</td><td class="n">USD 3.3333</td><td class="n">USD 3.3333</td>"#
        )
        // A week's cohort of the same installs, and an erased install leaving its cohort.
        #expect(try browser.get("/projects/\(projectID)/cohorts?range=30d&group=week").status == 200)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(installs[1].id)").status == 204)
        #expect(
            try cohortRow("retention")
                == #"<th>\#(day)</th><td class="n">2</td><td class="n heat5">50.0 %</td><td class="n heat5">50.0 %</td><td class="n heat0">0.0 %</td><td class="n heat5">50.0 %</td><td class="n heat0">0.0 %</td>"#
        )
        #expect(try browser.get(base + "&metric=nothing").status == 422)
        try expectTalliesMatchRows(app)
    }

    @Test func aLinksOrACampaignsCohortIsItsAttributedInstallsAlone() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        var installs: [String] = []
        for ip in ["198.51.100.121", "198.51.100.122"] {
            _ = try app.clickWithBeacon(ip: ip)
            installs.append(try #require(try app.install(ip: ip, key: key).json?["installId"] as? String))
        }
        installs.append(try #require(try app.install(ip: "203.0.113.123", key: key).json?["installId"] as? String))
        #expect(try app.count("SELECT count(*) FROM installs WHERE attributed") == 2)
        let day = try #require(try app.queryOne("SELECT min(created_at) FROM installs") { Timestamp(milliseconds: $0.int(0)) }).iso8601.prefix(10)
        try app.advanceClock(projectID, seconds: 86_400 + 7_200)
        for install in [installs[0], installs[2]] { try event(app, key: key, installID: install, name: "open") }
        try app.advanceClock(projectID, seconds: 40 * 86_400)

        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        func firstCells(_ query: String) throws -> String {
            let page = try browser.get("/projects/\(projectID)/cohorts?range=custom&from=\(day)&to=\(day)&group=day" + query).bodyText
            return String(try #require(rows(page).first { $0.hasPrefix("<th>\(day)</th>") }, "\(page)").prefix(120))
        }
        #expect(try firstCells("").hasPrefix(#"<th>\#(day)</th><td class="n">3</td><td class="n heat5">66.7 %</td>"#))
        #expect(try firstCells("&link=summer").hasPrefix(#"<th>\#(day)</th><td class="n">2</td><td class="n heat5">50.0 %</td>"#))
        #expect(try firstCells("&campaign=summer").hasPrefix(#"<th>\#(day)</th><td class="n">2</td><td class="n heat5">50.0 %</td>"#))
        #expect(try browser.get("/projects/\(projectID)/cohorts?link=nothing").status == 422)
    }

}
