import Attribution
import Testing

/// How the report joins a network's cost to the installs our sources credited, and converts both.
@Suite struct ROASReportTests {
    private let rates = ExchangeRates(["2026-11-30": ["USD": 1.25, "GBP": 0.8]])

    private func cost(_ network: String, _ id: String, _ name: String, _ spend: Int64, _ currency: String = "EUR") -> CostRow {
        CostRow(day: "2026-11-30", network: network, campaignID: id, campaignName: name, spendMicros: spend * 1_000_000, currency: currency)
    }

    @Test func ourCampaignsJoinByIdElseByNameWithinOneNetworkName() {
        let report = ROASReport.build(
            cost: [cost("google", "111", "Winter", 100), cost("Facebook", "m-7", "Retarget", 50, "USD"), cost("tiktok", "", "Spring", 20)],
            acquired: [
                // A link whose utm_campaign is the campaign's id, and Google Ads' claims of it: one row.
                .init(network: "google", campaignID: "111", campaignName: "111", installs: 3, payingInstalls: 1),
                .init(network: "google", campaignID: "111", campaignName: "Winter", installs: 2, payingInstalls: 0),
                // An Instagram link named like Meta's campaign.
                .init(
                    network: NetworkName.normalized("Instagram"), campaignID: "retarget", campaignName: "retarget", installs: 5, payingInstalls: 2,
                    revenue: [.init(day: "2026-11-30", currency: "GBP", span: 3, amount: 8)]),
                // Ours with no cost.
                .init(network: "newsletter", campaignID: "may", campaignName: "may", installs: 7, payingInstalls: 0),
            ], rates: rates, currency: "EUR", projectCurrency: "EUR", by: .campaign)
        #expect(
            report.rows.map { "\($0.network)/\($0.campaignID)/\($0.campaignName)" } == [
                "google/111/Winter", "meta/m-7/Retarget", "tiktok//Spring", "newsletter/may/may",
            ])
        let google = report.rows[0]
        #expect(google.installs == 5 && google.payingInstalls == 1 && google.cpi == 20 && google.hasCost && google.hasInstalls)
        let meta = report.rows[1]
        // 50 USD at 1.25 is 40 EUR; 8 GBP at 0.8 is 10 EUR, by day 3: in D7 and D30, not D0.
        #expect(meta.spend == 40 && meta.installs == 5 && meta.revenue[0] == nil && meta.revenue[7] == 10 && meta.revenue[30] == 10)
        #expect(meta.roas(7) == 0.25 && meta.roas(0) == 0)
        #expect(!report.rows[2].hasInstalls && report.rows[2].installs == 0 && report.rows[2].cpi == nil)
        #expect(!report.rows[3].hasCost && report.rows[3].roas(7) == nil && report.rows[3].cpi == nil)
        #expect(report.totals.spend == 160 && report.totals.installs == 17 && report.staleRateDays.isEmpty && report.unconverted.isEmpty)

        let networks = ROASReport.build(
            cost: [cost("google", "111", "Winter", 100), cost("google", "222", "Summer", 10)],
            acquired: [.init(network: "google", campaignID: "333", campaignName: "Other", installs: 1, payingInstalls: 0)], rates: rates,
            currency: "EUR", projectCurrency: "EUR", by: .network)
        #expect(networks.rows.count == 1 && networks.rows[0].spend == 110 && networks.rows[0].installs == 1 && networks.rows[0].campaignID.isEmpty)
    }

    @Test func aDayWithoutRatesUsesTheLastOneAndAnAmountWithoutAnyIsLeftOutAndSaid() {
        let report = ROASReport.build(
            cost: [
                CostRow(day: "2026-12-01", network: "google", campaignID: "1", campaignName: "A", spendMicros: 25_000_000, currency: "USD"),
                CostRow(day: "2026-12-01", network: "google", campaignID: "1", campaignName: "A", spendMicros: 500_000_000, currency: "JPY"),
            ],
            acquired: [
                .init(
                    network: "google", campaignID: "1", campaignName: "A", installs: 1, payingInstalls: 1,
                    revenue: [.init(day: "2026-12-01", currency: "", span: 0, amount: 5)])
            ], rates: rates, currency: "EUR", projectCurrency: "USD", by: .campaign)
        // 25 USD at Monday's rates on Tuesday: 20 EUR; the yen has no rate; '' is the project's USD.
        #expect(report.rows[0].spend == 20 && report.rows[0].revenue[0] == 4 && report.rows[0].roas(0) == 0.2)
        #expect(report.staleRateDays == ["2026-12-01"] && report.unconverted == ["JPY": 500])
    }

    /// By ad group: each ad group the network reported cost for is a row; the claims' installs
    /// join their campaign's ad group, one with no cost there is a row of the campaign's own, and
    /// a link's installs (which name no ad group) the campaign's row without one.
    @Test func byAdGroupTheClaimsMeetTheirAdGroupsCostAndTheRestTheirCampaign() {
        func row(_ adGroup: String, _ spend: Int64) -> CostRow {
            CostRow(
                day: "2026-11-30", network: "apple_ads", campaignID: "542", campaignName: "Search", adGroupID: adGroup,
                spendMicros: spend * 1_000_000,
                currency: "EUR")
        }
        let acquired: [ROASReport.Acquired] = [
            .init(
                network: "apple_ads", campaignID: "542", campaignName: "Search", adGroupID: "A1", adGroupName: "Brand", installs: 4, payingInstalls: 1
            ),
            .init(
                network: "apple_ads", campaignID: "542", campaignName: "Search", adGroupID: "A3", adGroupName: "Rivals", installs: 1,
                payingInstalls: 0),
            .init(network: "apple_ads", campaignID: "542", campaignName: "542", installs: 2, payingInstalls: 0),
        ]
        let report = ROASReport.build(
            cost: [row("A1", 40), row("A2", 10)], acquired: acquired, rates: rates, currency: "EUR", projectCurrency: "EUR", by: .adGroup)
        #expect(
            report.rows.map { "\($0.campaignID)/\($0.adGroupID)/\($0.adGroupName)/\($0.spend)/\($0.installs)" } == [
                "542/A1/Brand/40.0/4", "542/A2//10.0/0", "542///0.0/2", "542/A3/Rivals/0.0/1",
            ])
        #expect(report.rows[0].cpi == 10 && !report.rows[1].hasInstalls && !report.rows[3].hasCost)
        #expect(report.totals.spend == 50 && report.totals.installs == 7)
        // By campaign the same is one row, as before there were ad groups.
        let byCampaign = ROASReport.build(
            cost: [row("A1", 40), row("A2", 10)], acquired: acquired, rates: rates, currency: "EUR", projectCurrency: "EUR", by: .campaign)
        #expect(
            byCampaign.rows.count == 1 && byCampaign.rows[0].spend == 50 && byCampaign.rows[0].installs == 7 && byCampaign.rows[0].adGroupID.isEmpty)
    }
}
