import Foundation
import TestSupport
import Testing

@testable import API

@Suite struct DashboardOverviewTests {
    @Test func cardsCompareWithThePeriodBeforeAndTheFunnelShowsItsRates() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink(testMode: true)
        for index in 0..<4 {
            _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": "198.51.100.\(index)"])
        }
        try app.settle()
        _ = try app.advanceClock(projectID, seconds: 30 * 3600)
        for index in 0..<2 {
            _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": "203.0.113.\(index)"])
        }
        try app.settle()
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let overview = try browser.get("/projects/\(projectID)?range=24h").bodyText
        #expect(
            overview.contains(
                #"<small>Clicks</small><b>2</b><small>0 from bots, not counted</small><small class="change">−50% on the period before</small>"#))
        #expect(overview.contains(#"<small class="change">none before either</small>"#))
        // The funnel: drawn, and each step's rate of the one before and of the clicks.
        #expect(overview.contains(#"<svg viewBox="0 0 480 160" role="img" aria-label="Funnel">"#))
        // Each step's conversion on a line of its own, so that it fits beside the bars.
        #expect(overview.contains(##"<text x="278.8" y="72" font-size="11" fill="#5b6775">0.0% of the step before</text>"##))
        #expect(overview.contains(#"<tr><th>Clicks</th><td class="n">2</td><td class="n">–</td><td class="n">–</td></tr>"#))
        #expect(overview.contains(#"<tr><th>Installs</th><td class="n">0</td><td class="n">0.0%</td><td class="n">0.0%</td></tr>"#))
        // Source, match and confidence are three tables, not one.
        #expect(overview.contains("<h2>Installs by source</h2>") && overview.contains("<h2>Attributed installs by match</h2>"))
        #expect(overview.contains("<h2>Attributed installs by confidence</h2>"))
    }

    @Test func countAxesHaveWholeNumberTicks() {
        for top in [5.0, 7, 19, 23, 61, 230, 2_300] {
            let svg = SVGChart.bars(labels: ["a"], series: [("Clicks", [top])]).markup
            let ticks = svg.components(separatedBy: ##"text-anchor="end" fill="#5b6775">"##).dropFirst().map { $0.prefix { $0 != "<" } }
            #expect(ticks.count == 5)
            #expect(ticks.allSatisfy { !$0.contains(".") }, "\(top): \(ticks)")
        }
    }

    @Test func theFunnelRateIsAShareOfTheStepBefore() {
        #expect(FunnelChart.rate(1, of: 3) == "33%")
        #expect(FunnelChart.rate(1, of: 40) == "2.5%")
        #expect(FunnelChart.rate(5, of: 0) == "–")
    }
}
