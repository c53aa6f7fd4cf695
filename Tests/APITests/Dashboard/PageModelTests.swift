import App
import Attribution
import Foundation
import HTTP
import StoreContracts
import TestSupport
import Testing

@testable import API

/// The dashboard pages' view models read as values: what each page decides (rows, their order,
/// which cells are over, who may change what) without parsing its HTML.
@Suite struct PageModelTests {
    private static let android =
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"

    /// A project with three human clicks on `summer` (two iOS, one Android), a bot's, and an
    /// install from the beacon's click with a purchase of 9.99 USD, one of 10 and an open.
    private func seeded() throws -> (app: TestApp, projectID: String, linkID: String, installID: String) {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, link) = try app.projectWithLink(testMode: true)
        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": "198.51.100.81"])
        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": Self.android, "X-Forwarded-For": "198.51.100.83"])
        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": "Googlebot/2.1", "X-Forwarded-For": "198.51.100.84"])
        _ = try app.clickWithBeacon(ip: "198.51.100.85")
        let installID = try #require(try app.install(ip: "198.51.100.85", key: key).json?["installId"] as? String)
        for (name, revenue) in [("purchase", "9.99"), ("purchase", "10"), ("open", nil)] {
            var body = #"{"installId":"\#(installID)","eventName":"\#(name)""#
            if let revenue { body += #","eventData":{"revenue":\#(revenue),"currency":"USD"}"# }
            #expect(try app.request("POST", "/api/sdk/v1/event", json: body + "}", adminKey: key).status == 200)
        }
        try app.settle()
        return (app, projectID, try #require(link["id"] as? String), installID)
    }

    private func period(_ app: TestApp, _ projectID: String, _ query: [(name: String, value: String)]) throws -> DashboardPeriodPage {
        let project = try #require(try app.services.app.projects.cachedProject(id: projectID))
        let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
        let range = try DashboardRange.resolve(query.map { ($0.name, $0.value) }, calendar: calendar, now: app.services.now(for: project))
        return DashboardPeriodPage(project: project, query: query, calendar: calendar, range: range)
    }

    private static let admin = DashboardViewer(
        session: DashboardSession(user: nil, csrfToken: "csrf", expiresAt: Timestamp(milliseconds: Int64.max)), token: "token")

    private static func viewer(of projectID: String) -> DashboardViewer {
        DashboardViewer(
            session: DashboardSession(
                user: DashboardUser(
                    id: "u1", projectID: projectID, email: "viewer@example.com", role: .viewer, createdAt: Timestamp(milliseconds: 0)),
                csrfToken: "csrf", expiresAt: Timestamp(milliseconds: Int64.max)), token: "token")
    }

    @Test func breakdownsSortAsAskedAndNameAnUnknownView() throws {
        let (app, projectID, _, _) = try seeded()
        func model(_ query: [(name: String, value: String)]) throws -> BreakdownsModel {
            try BreakdownsModel.load(try period(app, projectID, [("range", "7d")] + query), services: app.services)
        }
        let platforms = try model([("by", "platform")])
        guard case .property(.platform, let rows) = platforms.table else { throw PageProblem(title: "not platforms", text: "\(platforms.table)") }
        #expect(rows.map { BreakdownProperty.platform.display($0.value) } == ["iOS", "Android"], "bots are left out")
        #expect(rows.map(\.clicks) == [2, 1] && rows.map(\.installs) == [1, 0])
        #expect(platforms.sort == "clicks" && platforms.top == 2 && platforms.label == "Platform")
        #expect(try model([("by", "platform"), ("sort", "nonsense")]).sort == "clicks", "an unknown column sorts by the default")

        let events = try model([("sort", "name")])
        guard case .events(let named) = events.table else { throw PageProblem(title: "not events", text: "\(events.table)") }
        #expect(named.map(\.name) == ["open", "purchase"] && events.view == "events")
        #expect(named[1].count == 2 && named[1].installs == 1 && named[1].revenue == ["USD": 19.99])
        guard case .events(let byRevenue) = try model([("sort", "revenue")]).table else { return }
        #expect(byRevenue.map(\.name) == ["purchase", "open"])

        #expect(throws: PageProblem(title: "Unknown breakdown", text: "by must be one of events, platform, os, country, referrer")) {
            try model([("by", "city")])
        }
    }

    @Test func cohortsScopeToALinkAndLeaveDaysNotOverEmpty() throws {
        let (app, projectID, _, _) = try seeded()
        func model(_ query: [(name: String, value: String)]) throws -> CohortsModel {
            try CohortsModel.load(try period(app, projectID, query), services: app.services)
        }
        let today = try model([("range", "7d")])
        #expect(today.group == "day" && today.metric == "retention" && today.scope == nil)
        #expect(today.table.rows.count == 7, "one cohort per local day")
        let cohort = try #require(today.table.rows.last)
        #expect(cohort.installs == 1)
        #expect(today.cell(cohort, day: 1) == .notOver, "a day no install has lived through yet")
        #expect(today.cell(today.table.rows[0], day: 1) == .none, "a day without installs")
        #expect(today.campaigns == ["summer"])

        _ = try app.advanceClock(projectID, seconds: 8 * 86_400)
        let later = try model([("range", "30d"), ("metric", "events")])
        let grown = try #require(later.table.rows.first { $0.installs == 1 })
        #expect(later.cell(grown, day: 3) == .value("3.00", heat: nil), "three events by day 3")
        #expect(later.cell(grown, day: 14) == .notOver)
        let retention = try model([("range", "30d")])
        #expect(retention.cell(grown, day: 1) == .value("0.0 %", heat: 0), "no event on day 1")

        let link = try model([("range", "30d"), ("link", " summer ")])
        #expect(link.scope == "installs credited to the link summer" && link.linkCode == "summer")
        #expect(link.carried.map(\.0) == ["group", "metric", "link"])
        #expect(throws: PageProblem(title: "Unknown link", text: "the project has no link winter")) { try model([("link", "winter")]) }
        #expect(throws: PageProblem(title: "Unknown cohort view", text: "group must be day or week, metric one of retention, events, revenue")) {
            try model([("group", "month")])
        }
    }

    @Test func anInstallsModelShowsDeliveriesAndErasureToAdminsOnly() throws {
        let (app, projectID, _, installID) = try seeded()
        let project = try #require(try app.services.app.projects.cachedProject(id: projectID))
        let list = try InstallsModel.load(
            HTTPRequest(method: .get, target: "/dashboard/projects/\(projectID)/installs", headers: [:]), project: project, services: app.services)
        #expect(!list.test && list.installs.map(\.id) == [installID] && list.olderBefore == nil)
        let test = try InstallsModel.load(
            HTTPRequest(method: .get, target: "/dashboard/projects/\(projectID)/installs?traffic=test", headers: [:]), project: project,
            services: app.services)
        #expect(test.test && test.installs.isEmpty, "test traffic is listed apart")

        let shown = try InstallModel.load(installID: installID, viewer: Self.admin, project: project, services: app.services)
        #expect(shown.events.map(\.name).sorted() == ["open", "purchase", "purchase"])
        #expect(shown.click != nil && shown.canErase && shown.deliveries != nil)
        let explanation = try #require(shown.explanation)
        #expect(explanation.decidedBy != "none" && explanation.rows.contains { $0.outcome == "won" && $0.clickIsID }, "\(explanation)")
        #expect(InstallModel.source(shown.install) == "link" && InstallModel.confidence(shown.install).hasSuffix(" %"))

        // A confidence edited by hand out of range, or not a number, shows as it is and traps nothing.
        func confidenceText(_ confidence: Double) -> String {
            InstallModel.confidence(
                InstallSummary(
                    id: "i", createdAt: Timestamp(milliseconds: 0), api: "sdk", platform: nil, matchType: "probabilistic", attributed: true,
                    confidence: confidence, matchedFactors: [], linkID: nil, shortCode: nil, clickID: nil, userID: nil, country: nil,
                    isTest: false))
        }
        #expect(confidenceText(0.856) == "86 %" && confidenceText(.nan) == "nan %" && confidenceText(1e300) == "1e+300 %")
        let asViewer = try InstallModel.load(installID: installID, viewer: Self.viewer(of: projectID), project: project, services: app.services)
        #expect(asViewer.deliveries == nil && !asViewer.canErase)
        #expect(throws: AppError.self) { try InstallModel.load(installID: "nope", viewer: Self.admin, project: project, services: app.services) }
    }

    @Test func aLinksModelHoldsItsMonthAndItsLatestClicks() throws {
        let (app, projectID, linkID, _) = try seeded()
        let project = try #require(try app.services.app.projects.cachedProject(id: projectID))
        let link = try app.services.app.links.existing(id: linkID, projectID: projectID)
        let request = HTTPRequest(method: .get, target: "/dashboard/projects/\(projectID)/links/\(linkID)", headers: ["Host": "links.test"])
        let model = try LinkDetailModel.load(request, viewer: Self.admin, project: project, link: link, services: app.services)
        #expect(model.days.count == 30 && model.days.reduce(0) { $0 + $1.clicks } == 3, "human clicks only")
        #expect(model.days.reduce(0) { $0 + $1.installs } == 1)
        #expect(model.recentClicks.count == 4 && model.recentClicks.filter(\.isBot).count == 1, "the latest clicks mark the bot")
        #expect(model.url.hasSuffix("/summer") && model.variants.isEmpty && model.canEdit)
        let asViewer = try LinkDetailModel.load(request, viewer: Self.viewer(of: projectID), project: project, link: link, services: app.services)
        #expect(!asViewer.canEdit && asViewer.domains.isEmpty)
        #expect(LinkDetailModel.rate(VariantCounts(name: "a", clicks: 8, installs: 1)) == "12.5%")
        #expect(LinkDetailModel.rate(VariantCounts(name: "a")) == "–" && LinkDetailModel.revenue(VariantCounts(name: "a")) == "–")
    }

    @Test func aSettingsModelShowsTheFormAsSentAndTheProjectOtherwise() throws {
        let (app, projectID, _, _) = try seeded()
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/domains", json: #"{"domain":"go.shop.example"}"#).status == 201)
        let project = try #require(try app.services.app.projects.cachedProject(id: projectID))
        let model = try SettingsModel.load(Self.admin, project: project, form: nil, services: app.services)
        #expect(model.value(of: "ios_team_id") == "ABCDE12345" && model.value(of: "web_url") == "https://shop.example.com/")
        #expect(model.keys.count == 1 && model.canDeleteProject)
        #expect(model.domains.map(\.domain.domain) == ["go.shop.example"] && model.domains[0].links == 0)
        #expect(model.domains[0].certificate == "none (from the proxy, or not asked for yet)")
        #expect(model.appleAppSiteAssociation?.contains("ABCDE12345.com.example.shop") == true)

        let sent = try DashboardForm(
            HTTPRequest(
                method: .post, target: "/", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Array("ios_team_id=WRONG&in_app_escape=0&in_app_escape=1".utf8)))
        let again = try SettingsModel.load(Self.viewer(of: projectID), project: project, form: sent, services: app.services)
        #expect(again.value(of: "ios_team_id") == "WRONG" && again.value(of: "web_url") == "https://shop.example.com/")
        #expect(again.escapesInAppBrowsers && !again.canDeleteProject)
    }
}
