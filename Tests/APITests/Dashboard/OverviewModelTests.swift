import App
import Attribution
import Foundation
import HTTP
import StoreContracts
import TestSupport
import Testing

@testable import API

/// The overview's view model, read as values: what the page decides (counts against the period
/// before, the funnel, the chart's buckets, the links' order) without parsing its HTML.
@Suite struct OverviewModelTests {
    @Test func theModelComparesWithThePeriodBeforeAndSortsAsAsked() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink(testMode: true)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"winter"}"#).status == 201)
        func click(_ code: String, _ address: String) throws {
            _ = try app.request("GET", "/\(code)", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": address])
        }
        for index in 0..<4 { try click("summer", "198.51.100.\(index)") }
        try app.settle()
        _ = try app.advanceClock(projectID, seconds: 30 * 3600)
        try click("summer", "203.0.113.1")
        for index in 0..<3 { try click("winter", "203.0.113.\(10 + index)") }
        try app.settle()

        func model(_ query: [(name: String, value: String)]) throws -> OverviewModel {
            let project = try #require(try app.services.app.projects.cachedProject(id: projectID))
            let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
            let range = try DashboardRange.resolve(query, calendar: calendar, now: app.services.now(for: project))
            return try OverviewModel.load(
                DashboardPeriodPage(project: project, query: query, calendar: calendar, range: range), services: app.services)
        }
        let day = try model([("range", "24h")])
        #expect(day.totals.clicks == 4)
        #expect(day.before.clicks == 4, "the 24 hours before hold the first four")
        #expect(day.cards.map(\.title) == ["Clicks", "Installs", "Events", "Payments", "Event values"])
        #expect(day.cards[0].value == "4" && day.cards[0].change == OverviewRoutes.change(4, 4))
        #expect(day.funnel.map(\.count) == [4, 0, 0, 0])
        #expect(day.series(\.clicks).reduce(0, +) == 4, "the chart's buckets add up to the period")
        #expect(day.buckets.count == day.series(\.clicks).count)
        // Links by clicks (the default), and by code when asked.
        #expect(day.links.map(\.shortCode) == ["winter", "summer"])
        #expect(try model([("range", "24h"), ("sort", "code")]).links.map(\.shortCode) == ["summer", "winter"])
        let week = try model([("range", "7d")])
        #expect(week.totals.clicks == 8)
        #expect(week.links.map(\.counts.clicks) == [5, 3])
    }
}

/// The links page's view model: the page of links its search names, with each link's 30 days.
@Suite struct LinksModelTests {
    @Test func theModelPagesAndSearchesWithEachLinksMonth() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        for code in ["winter", "autumn"] {
            #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"\#(code)"}"#).status == 201)
        }
        for index in 0..<3 {
            _ = try app.request("GET", "/winter", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": "198.51.100.\(index)"])
        }
        try app.settle()
        let project = try #require(try app.services.app.projects.cachedProject(id: projectID))
        func model(_ target: String) throws -> LinksModel {
            try LinksModel.load(HTTPRequest(method: .get, target: target, headers: ["Host": "links.test"]), project: project, services: app.services)
        }
        let all = try model("/dashboard/projects/\(projectID)/links")
        #expect(Set(all.rows.map(\.link.shortCode)) == ["summer", "winter", "autumn"])
        #expect(!all.hasOlder && all.pageNumber == 1)
        let winter = try #require(all.rows.first { $0.link.shortCode == "winter" })
        #expect(winter.counts?.clicks == 3)
        #expect(winter.dailyClicks.count == 30 && winter.dailyClicks.reduce(0, +) == 3)
        #expect(winter.url.hasSuffix("/winter"))
        #expect(all.rows.first { $0.link.shortCode == "autumn" }?.counts?.clicks ?? 0 == 0)
        let found = try model("/dashboard/projects/\(projectID)/links?q=%20wint%20")
        #expect(found.search == "wint" && found.rows.map(\.link.shortCode) == ["winter"])
        #expect(try model("/dashboard/projects/\(projectID)/links?page=2").rows.isEmpty)
    }
}
