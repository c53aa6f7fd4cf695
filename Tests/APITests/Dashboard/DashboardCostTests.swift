import App
import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API

/// The cost page: a CSV uploaded through its form (stored whole, or refused naming its cells),
/// and the period's spend by network and campaign in the project's currency at each day's rates.
@Suite struct DashboardCostTests {
    @Test func anUploadShowsByCampaignConvertedAtItsDaysRates() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink(testMode: true)
        let now = try app.advanceClock(projectID, seconds: 0)
        let calendar = LocalCalendar.utc
        let today = calendar.dateText(now)
        let yesterday = calendar.dateText(calendar.addingDays(-1, to: calendar.startOfDay(now)))
        // Rates for yesterday only: today's EUR row is converted at yesterday's, said so.
        _ = try app.services.app.exchangeRates.importECB(Array("Date,USD,JPY\n\(yesterday),1.25,160\n".utf8))

        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = "/projects/\(projectID)/cost"
        let csv = """
            date,network,campaign_id,campaign_name,spend,currency
            \(yesterday),google,111,Winter sale,10,USD
            \(today),google,111,Winter sale,8,EUR
            \(today),meta,m-7,Retarget,3,CHF
            """
        let uploaded = try browser.submitMultipart(from: page, to: page, [], file: ("file", Array(csv.utf8)))
        #expect(uploaded.status == 200, "\(uploaded.bodyText.prefix(300))")
        #expect(uploaded.bodyText.contains("Stored 3 rows: 3 added, 0 replaced."))

        let project = try #require(try app.services.app.projects.cachedProject(id: projectID))
        let range = try DashboardRange.resolve([("range", "7d")], calendar: calendar, now: now)
        let model = try CostModel.load(
            DashboardPeriodPage(project: project, query: [("range", "7d")], calendar: calendar, range: range), services: app.services)
        #expect(model.campaigns.map(\.network) == ["google", "meta"], "most spend first")
        let google = model.campaigns[0]
        // In the project's USD: 10 USD as they are, and 8 EUR at yesterday's 1.25 per euro, 10.
        #expect(abs((google.converted ?? 0) - 20) < 1e-9 && google.spend == ["USD": 10, "EUR": 8] && google.days == 2)
        #expect(model.campaigns[1].converted == nil, "no franc rate")
        #expect(model.unconverted == 1 && model.stale == 1 && abs(model.total - 20) < 1e-9)

        let shown = try browser.get(page + "?range=7d").bodyText
        #expect(shown.contains("<td>google</td><td>Winter sale <span class=\"muted\">111</span></td><td class=\"n\">USD 20.00</td>"), "\(shown)")
        #expect(shown.contains("1 rows have no exchange rate to USD"))

        let refused = try browser.submitMultipart(
            from: page, to: page, [], file: ("file", Array("date,network,campaign_id,campaign_name,spend\n\(today),google,1,A,-2\n".utf8)))
        #expect(refused.status == 422 && refused.bodyText.contains("line 2, column spend: must not be negative"), "\(refused.bodyText.prefix(400))")
        #expect(try app.count("SELECT count(*) FROM cost_rows") == 3)
    }
}
