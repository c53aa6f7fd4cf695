import App
import Attribution
import StoreContracts

/// What a project's overview shows for a period, loaded and decided without HTML: the counts and
/// those of the period of the same length before it, the cards, the funnel, the chart's buckets,
/// the links and campaigns in the order asked for. `OverviewRoutes.overview` renders it; tests
/// read it as values.
struct OverviewModel {
    struct Card: Equatable {
        let title: String
        let value: String
        let note: String
        /// Against the period before, as a signed percentage ("+12%", "–").
        let change: String
    }

    struct Bucket: Equatable {
        let label: String
        let counts: ProjectStats.Counts
    }

    let project: Project
    let stats: ProjectStats
    let before: ProjectStats.Counts
    /// The links' column the table is sorted by, and the campaigns'.
    let sort: String
    let campaignSort: String
    let links: [ProjectStats.LinkCounts]
    let campaigns: [OverviewRoutes.Campaign]
    let buckets: [Bucket]

    var totals: ProjectStats.Counts { stats.totals }

    static func load(_ period: DashboardPeriodPage, services: Services) throws -> OverviewModel {
        let (project, query, calendar, range) = (period.project, period.query, period.calendar, period.range)
        let reports = services.app.reports
        let stats = try reports.dashboardStats(project: project, since: range.since, until: range.until)
        // The same length just before, for the cards' comparison (its past comes from the cache).
        let length = range.until.milliseconds - range.since.milliseconds
        let before = try reports.dashboardStats(
            project: project, since: Timestamp(milliseconds: range.since.milliseconds - length), until: range.since
        ).totals
        let sort = query.first { $0.name == "sort" }?.value ?? "clicks"
        let campaignSort = query.first { $0.name == "csort" }?.value ?? "clicks"
        let buckets = try reports.dashboardSeries(project: project, boundaries: range.boundaries).map {
            Bucket(label: range.label($0.start, calendar: calendar), counts: $0.counts)
        }
        var campaigns = OverviewRoutes.campaigns(stats.links, by: campaignSort)
        // Spend beside the campaigns only when the period has cost: most projects upload none.
        let (firstDay, lastDay) = (calendar.dateText(range.since), calendar.dateText(range.until.adding(seconds: -1)))
        if try services.app.costs.hasRows(project: project, since: firstDay, until: lastDay) {
            let report = try services.app.roas.dashboardReport(project: project, since: firstDay, until: lastDay, by: .campaign)
            for index in campaigns.indices {
                let network = NetworkName.normalized(campaigns[index].source)
                campaigns[index].cost = report.rows.first { $0.network == network && $0.ours.contains(campaigns[index].campaign) }
            }
        }
        return OverviewModel(
            project: project, stats: stats, before: before, sort: sort, campaignSort: campaignSort,
            links: OverviewRoutes.sorted(stats.links, by: sort), campaigns: campaigns, buckets: buckets)
    }

    /// Clicks, installs, events and the two kinds of money, each against the period before (money
    /// in the project's currency).
    var cards: [Card] {
        let currency = project.settings.currency
        return [
            Card(
                title: "Clicks", value: "\(totals.clicks)", note: "\(totals.botClicks) from bots, not counted",
                change: OverviewRoutes.change(totals.clicks, before.clicks)),
            Card(
                title: "Installs", value: "\(totals.installs)", note: "\(OverviewRoutes.share(totals)) attributed",
                change: OverviewRoutes.change(totals.installs, before.installs)),
            Card(
                title: "Events", value: "\(totals.events)", note: "from every install", change: OverviewRoutes.change(totals.events, before.events)
            ),
            Card(
                title: "Payments", value: OverviewRoutes.money(totals.paymentRevenue),
                note: stats.verifiedPaymentRevenue.isEmpty
                    ? "captured, not removed" : "captured, not removed; \(OverviewRoutes.money(stats.verifiedPaymentRevenue)) verified by a store",
                change: OverviewRoutes.change(totals.paymentRevenue[currency] ?? 0, before.paymentRevenue[currency] ?? 0)),
            Card(
                title: "Event values", value: OverviewRoutes.money(totals.eventRevenue), note: "declared by events",
                change: OverviewRoutes.change(totals.eventRevenue[currency] ?? 0, before.eventRevenue[currency] ?? 0)),
        ]
    }

    var funnel: [FunnelChart.Step] {
        [
            FunnelChart.Step(name: "Clicks", count: totals.clicks), FunnelChart.Step(name: "Installs", count: totals.installs),
            FunnelChart.Step(name: "Signups", count: totals.signups), FunnelChart.Step(name: "Paying installs", count: totals.payingInstalls),
        ]
    }

    /// Installs attributed to a link (not Apple Ads, nor an ad platform's claim).
    var linkInstalls: Int { totals.attributedInstalls - totals.appleAdsInstalls - adPlatformInstalls.reduce(0) { $0 + $1.installs } }

    /// Installs each ad platform's claims hold, by the platform's name.
    var adPlatformInstalls: [(name: String, installs: Int)] {
        stats.adPlatformInstallsBySource.sorted { $0.key < $1.key }.map { source, installs in
            (source == AdPlatformClaim.Source.googleAds.rawValue ? "Google Ads" : "Meta install referrer", installs)
        }
    }

    /// The chart's series, one value per bucket.
    func series(_ value: (ProjectStats.Counts) -> Int) -> [Double] { buckets.map { Double(value($0.counts)) } }
}
