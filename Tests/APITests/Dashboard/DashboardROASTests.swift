import App
import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API

/// The ROAS page: a seeded project's numbers (computed by hand in `ROASTests`) by campaign and by
/// network, sortable, with the totals and the period before.
@Suite struct DashboardROASTests {
    @Test func theSeededCampaignShowsItsSpendInstallsAndReturnByDay() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let projectID = try app.seededROASProject()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let base = "/projects/\(projectID)/roas?range=custom&from=2031-03-02&to=2031-03-02"
        let page = try browser.get(base)
        #expect(page.status == 200)
        let html = page.bodyText
        #expect(html.contains(#"aria-current="page">ROAS</a>"#))
        let summer = try #require(html.components(separatedBy: "<tr>").first { $0.contains("23851") }, "\(html)")
        // 40 EUR of spend, one install, 12 EUR by day 7: 30 %.
        #expect(
            summer.contains(
                #"<td>meta</td><td>Summer <span class="muted">23851</span></td><td class="n">EUR 40.00</td><td class="n">1</td><td class="n">EUR 40.00</td>"#
            ), "\(summer)")
        #expect(summer.contains(#"<td class="n hide-narrow">EUR 12.00</td><td class="n hide-narrow">EUR 28.00</td>"#), "\(summer)")
        #expect(summer.contains(#"<td class="n hide-narrow">20.0 %</td><td class="n">30.0 %</td><td class="n hide-narrow">70.0 %</td>"#), "\(summer)")
        // Nothing of it refunded: the refunds column, between the revenue and the ROAS, says 0.
        #expect(summer.contains(#"EUR 28.00</td><td class="n hide-narrow">EUR 0.00</td><td class="n hide-narrow">20.0 %"#), "\(summer)")
        #expect(html.contains(">Refunds</a></th>"), "\(html)")
        let retarget = try #require(html.components(separatedBy: "<tr>").first { $0.contains("Retarget") })
        #expect(
            retarget.contains(#"<span class="badge">cost only</span>"#) && retarget.contains(#"<td class="n">EUR 25.00</td><td class="n">0</td>"#))
        #expect(html.contains(#"<tr><th colspan="2">Total</th><td class="n">EUR 65.00</td><td class="n">1</td>"#), "\(html)")
        #expect(html.contains(#"<td colspan="2">Period before</td><td class="n">–</td><td class="n">0</td>"#), "\(html)")
        #expect(html.contains("No rate converts JPY to EUR yet"), "\(html)")
        #expect(html.contains("Converted at an earlier day's rates (none published for them): 2031-03-02."))

        // By CPI only the row with installs has one, and comes first; by spend 40 comes before 25.
        let byCPI = try browser.get(base + "&sort=cpi").bodyText
        #expect(byCPI.contains("CPI ▾"))
        #expect(byCPI.range(of: "23851")!.lowerBound < byCPI.range(of: "Retarget")!.lowerBound)
        let bySpend = try browser.get(base).bodyText
        #expect(bySpend.range(of: "23851")!.lowerBound < bySpend.range(of: "Retarget")!.lowerBound)
        let byROAS = try browser.get(base + "&sort=roas_d7").bodyText
        #expect(byROAS.contains("ROAS D7 ▾"))
        #expect(byROAS.range(of: "23851")!.lowerBound < byROAS.range(of: "Retarget")!.lowerBound, "30 % before 0 %")
        #expect(byROAS.range(of: "Retarget")!.lowerBound < byROAS.range(of: "Spring")!.lowerBound, "0 % before none (no rate, no spend)")

        let networks = try browser.get(base + "&by=network").bodyText
        #expect(networks.contains(#"<tr><td>meta</td><td class="n">EUR 65.00</td><td class="n">1</td>"#), "\(networks)")
        #expect(networks.contains(#"<tr><td>tiktok</td><td class="n">EUR 0.00</td><td class="n">0</td>"#), "\(networks)")
        #expect(networks.contains("&amp;by=network&amp;sort=installs"), "sorting keeps the grouping")
        #expect(html.contains(#"&amp;by=adgroup">by ad group</a> · <a href="#), "\(html)")
        let adGroups = try browser.get(base + "&by=adgroup").bodyText
        #expect(adGroups.contains("<th>Campaign</th><th>Ad group</th>") && adGroups.contains("&amp;by=adgroup&amp;sort=installs"), "\(adGroups)")
        // The seed's cost names no ad group: Summer's row is the campaign's own, its ad group cell a dash.
        #expect(
            adGroups.contains(#"Summer <span class="muted">23851</span></td><td class="muted">–</td><td class="n">EUR 40.00</td>"#), "\(adGroups)")
        #expect(adGroups.contains(#"<tr><th colspan="3">Total</th>"#) && adGroups.contains("by ad group ·"), "\(adGroups)")

        // The overview's campaigns: the UTM campaign facebook/summer joined Meta's "Summer".
        let overview = try browser.get("/projects/\(projectID)?range=custom&from=2031-03-02&to=2031-03-02").bodyText
        #expect(overview.contains(#"<th class="n">Spend</th><th class="n hide-narrow">CPI</th><th class="n">ROAS D7</th>"#), "\(overview)")
        let campaign = try #require(overview.components(separatedBy: "<tr>").first { $0.contains("<td>facebook</td>") })
        #expect(
            campaign.contains(#"<td class="n">EUR 40.00</td><td class="n hide-narrow">EUR 40.00</td><td class="n">30.0 %</td></tr>"#), "\(campaign)")
    }
}
