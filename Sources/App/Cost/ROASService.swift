public import Attribution
import StoreContracts

/// Return on ad spend (docs/cost.md, "ROAS"): a period's cost beside the installs our sources
/// credited to the same campaigns and what those installs paid, in the project's reporting
/// currency.
public struct ROASService: Sendable {
    let store: any StoreBackend
    let reports: ReportService
    let exchangeRates: ExchangeRateService
    let cache = ROASReportCache()

    /// The report as the dashboard shows it: computed at most once a minute per project and range.
    public func dashboardReport(project: Project, since: String, until: String, by grouping: ROASReport.Grouping) throws -> ROASReport {
        let settings = project.settings
        let key = ROASReportCache.Key(
            projectID: project.id, since: since, until: until, grouping: grouping.rawValue, reportingCurrency: settings.reportingCurrency,
            currency: settings.currency, timeZone: settings.timeZone)
        return try cache.report(key, now: reports.clocks.server.now()) { try report(project: project, since: since, until: until, by: grouping) }
    }

    /// The days in [since, until] (`YYYY-MM-DD` of the project's calendar, both included).
    public func report(project: Project, since: String, until: String, by grouping: ROASReport.Grouping) throws -> ROASReport {
        try CostService.checkDays(since: since, until: until)
        let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
        guard let from = calendar.startOfDay(dateText: since), let lastDay = calendar.startOfDay(dateText: until) else {
            throw AppError.invalidField("since", "must be a day as YYYY-MM-DD")
        }
        let to = calendar.addingDays(1, to: lastDay)
        let stats = try reports.dashboardStats(project: project, since: from, until: to)
        let revenue = try store.costs.acquiredRevenue(projectID: project.id, from: from.milliseconds, to: to.milliseconds)
        var acquired: [ROASReport.Acquired] = []

        let linkRevenue = Dictionary(grouping: revenue.links, by: \.linkID).mapValues { $0.map(\.money) }
        let linkRefunds = Dictionary(grouping: revenue.linkRefunds, by: \.linkID).mapValues { $0.map(\.money) }
        for link in stats.links where link.counts.attributedInstalls > 0 || linkRevenue[link.linkID] != nil || linkRefunds[link.linkID] != nil {
            let campaign = link.utmCampaign ?? ""
            acquired.append(
                ROASReport.Acquired(
                    network: NetworkName.normalized(link.utmSource ?? ""), campaignID: campaign, campaignName: campaign,
                    installs: link.counts.attributedInstalls, payingInstalls: link.counts.payingInstalls, revenue: linkRevenue[link.linkID] ?? [],
                    refunds: linkRefunds[link.linkID] ?? []))
        }

        struct Claimed: Hashable { let network, campaignID, adGroupID: String }
        func byClaim(_ entries: [AcquiredRevenue.OfClaims]) -> [Claimed: [ROASReport.Revenue]] {
            Dictionary(grouping: entries) { Claimed(network: $0.network, campaignID: $0.campaignID, adGroupID: $0.adGroupID) }.mapValues {
                $0.map(\.money)
            }
        }
        let claimRevenue = byClaim(revenue.claims)
        let claimRefunds = byClaim(revenue.claimRefunds)
        var claimed: [Claimed: ROASReport.Acquired] = [:]
        let names = stats.appleAds.isEmpty ? nil : try store.appleAdsNames.names(projectID: project.id)
        for row in stats.appleAds where !row.test {
            let key = Claimed(network: NetworkName.appleAds, campaignID: row.campaignID ?? "", adGroupID: row.adGroupID ?? "")
            claimed[
                key,
                default: ROASReport.Acquired(
                    network: key.network, campaignID: key.campaignID, campaignName: names?.name(.campaign, row.campaignID) ?? "",
                    adGroupID: key.adGroupID, adGroupName: names?.name(.adGroup, row.adGroupID) ?? "", installs: 0, payingInstalls: 0)
            ]
            .installs += row.counts.attributedInstalls
        }
        for row in stats.adPlatforms {
            guard let source = AdPlatformClaim.Source(rawValue: row.source) else { continue }
            let key = Claimed(network: NetworkName.of(source), campaignID: row.campaignID ?? "", adGroupID: row.adGroupID ?? "")
            claimed[
                key,
                default: ROASReport.Acquired(
                    network: key.network, campaignID: key.campaignID, campaignName: row.campaignName ?? "", adGroupID: key.adGroupID,
                    adGroupName: row.adGroupName ?? "", installs: 0, payingInstalls: 0)
            ].installs += row.installs
        }
        for key in Set(claimRevenue.keys).union(claimRefunds.keys) where claimed[key] == nil {
            claimed[key] = ROASReport.Acquired(
                network: key.network, campaignID: key.campaignID, campaignName: "", adGroupID: key.adGroupID, installs: 0, payingInstalls: 0)
        }
        for (key, var group) in claimed.sorted(by: {
            ($0.key.network, $0.key.campaignID, $0.key.adGroupID) < ($1.key.network, $1.key.campaignID, $1.key.adGroupID)
        }) {
            group.revenue = claimRevenue[key] ?? []
            group.refunds = claimRefunds[key] ?? []
            acquired.append(group)
        }

        // Revenue is converted at its installs' UTC day, which may be the day before `since`.
        let rates = try exchangeRates.rates(since: LocalCalendar.utc.dateText(Timestamp(milliseconds: from.milliseconds - 86_400_000)), until: until)
        return ROASReport.build(
            cost: try store.costs.rows(projectID: project.id, since: since, until: until), acquired: acquired, rates: rates,
            currency: project.settings.reportingCurrency, projectCurrency: project.settings.currency, by: grouping)
    }
}
