import App
import Attribution
import Foundation
import StoreContracts

/// What the cohorts page shows, loaded and decided without HTML: the grouping and metric asked
/// for, whose installs (the project's, a campaign's or one link's), the campaigns to choose from
/// and the cohort table itself. `CohortsPage` renders it.
struct CohortsModel {
    static let metrics: [(key: String, label: String)] = [
        ("retention", "Retention"), ("events", "Events per install"), ("revenue", "Revenue per install"),
    ]

    let period: DashboardPeriodPage
    /// `day` or `week`.
    let group: String
    /// A key of `metrics`, and its label.
    let metric: String
    let metricLabel: String
    /// The short code and the campaign the query asked for (a link wins over a campaign).
    let linkCode: String
    let campaign: String
    /// Campaigns of the project's links over the last 30 days, in order.
    let campaigns: [String]
    /// Whose installs the cohorts hold, in words; nil for every install of the project.
    let scope: String?
    let table: CohortTable

    var project: Project { period.project }
    var weeks: Bool { group == "week" }

    /// The query items that keep this view when the range or one of them changes.
    var carried: [(String, String)] {
        [("group", group), ("metric", metric)] + [("link", linkCode), ("campaign", linkCode.isEmpty ? campaign : "")].filter { !$0.1.isEmpty }
    }

    static func load(_ period: DashboardPeriodPage, services: Services) throws -> CohortsModel {
        let (project, calendar, range) = (period.project, period.calendar, period.range)
        let now = services.now(for: project)
        let group = period.item("group") ?? (range.bucket == .week ? "week" : "day")
        let metric = period.item("metric") ?? "retention"
        guard ["day", "week"].contains(group), let shown = metrics.first(where: { $0.key == metric }) else {
            throw PageProblem(title: "Unknown cohort view", text: "group must be day or week, metric one of retention, events, revenue")
        }
        // Campaigns as the stats name them (a template's campaign included), from the past of the
        // 30 days kept summed ahead: today's live part would cost every view ~12 ms at 10 million
        // clicks.
        let month = try DashboardRange.resolve([("range", "30d")], calendar: calendar, now: now)
        let links = try services.app.reports.dashboardStats(
            project: project, since: month.since, until: max(month.since, now.roundedDown(toMultipleOf: 86_400_000))
        ).links
        let linkCode = period.item("link")?.trimmingCharacters(in: .whitespaces) ?? ""
        let campaign = period.item("campaign") ?? ""
        var scope: (ids: [String], label: String)?
        if !linkCode.isEmpty {
            guard
                let link = try services.app.links.search(projectID: project.id, text: linkCode, limit: 100).first(where: {
                    $0.shortCode == linkCode
                })
            else { throw PageProblem(title: "Unknown link", text: "the project has no link \(linkCode)") }
            scope = ([link.id], "installs credited to the link \(linkCode)")
        } else if !campaign.isEmpty {
            scope = (links.filter { $0.utmCampaign == campaign }.map(\.linkID), "installs credited to the links of the campaign \(campaign)")
        }
        let table = try services.app.reports.cohorts(
            project: project, boundaries: boundaries(range, weeks: group == "week", calendar: calendar), linkIDs: scope?.ids)
        return CohortsModel(
            period: period, group: group, metric: metric, metricLabel: shown.label, linkCode: linkCode, campaign: campaign,
            campaigns: Set(links.compactMap(\.utmCampaign)).sorted(), scope: scope?.label, table: table)
    }

    /// The range's local days, or its weeks from its first day (the last one cut at the range's end).
    static func boundaries(_ range: DashboardRange, weeks: Bool, calendar: LocalCalendar) -> [Timestamp] {
        var boundaries: [Timestamp] = []
        var day = 0
        while true {
            let start = calendar.addingDays(day, to: range.since)
            guard start < range.until else { break }
            boundaries.append(start)
            day += weeks ? 7 : 1
        }
        boundaries.append(range.until)
        return boundaries
    }

    enum Cell: Equatable {
        /// The cohort has no installs.
        case none
        /// Not every install of the cohort has lived through the day yet.
        case notOver
        /// The metric's value as shown, with the retention heat step (0–5) where it has one.
        case value(String, heat: Int?)
    }

    /// A row's cell on day `day` in the model's metric.
    func cell(_ row: CohortTable.Row, day: Int) -> Cell {
        guard row.installs > 0 else { return .none }
        guard row.complete[day] == true else { return .notOver }
        switch metric {
        case "events":
            return .value(String(format: "%.2f", row.eventsPerInstall(day) ?? 0), heat: nil)
        case "revenue":
            let revenue = row.revenuePerInstall(day)
            return .value(revenue.isEmpty ? "0" : Self.revenueText(revenue), heat: nil)
        default:
            let share = row.retention(day) ?? 0
            return .value(String(format: "%.1f %%", share * 100), heat: Int(exactly: min(5, max(0, (share * 10).rounded(.up)))) ?? 0)
        }
    }

    /// Per install, in each currency's decimals plus two (cents per install read as 0.0042).
    static func revenueText(_ amounts: [String: Double]) -> String {
        amounts.sorted { $0.key < $1.key }.map { currency, amount in
            "\(currency) " + String(format: "%.\(MoneyAmount.decimals(currency) + 2)f", amount)
        }.joined(separator: ", ")
    }
}
