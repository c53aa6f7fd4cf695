import App
import Attribution

/// What the ROAS page shows for a period, loaded without HTML: the report by campaign (or by
/// network) over the period's local days in the reporting currency, sorted by the column asked
/// for, and the totals of the period of the same length just before. `ROASPage` renders it.
struct ROASModel {
    /// The columns the table sorts by, with their labels.
    static let sortable: [(key: String, label: String)] = [
        ("spend", "Spend"), ("installs", "Installs"), ("cpi", "CPI"), ("paying_users", "Paying"), ("revenue_d7", "Revenue D7"),
        ("revenue_d30", "Revenue D30"), ("refunds", "Refunds"), ("roas_d0", "ROAS D0"), ("roas_d7", "ROAS D7"), ("roas_d30", "ROAS D30"),
    ]

    let period: DashboardPeriodPage
    let since: String
    let until: String
    let grouping: ROASReport.Grouping
    let sort: String
    let report: ROASReport
    /// The period before's totals, for comparison.
    let before: ROASReport.Row

    var project: Project { period.project }
    var currency: String { report.currency }

    static func load(_ period: DashboardPeriodPage, services: Services) throws -> ROASModel {
        let calendar = period.calendar
        let since = calendar.dateText(period.range.since)
        let until = calendar.dateText(period.range.until.adding(seconds: -1))
        let grouping = period.query.first { $0.name == "by" }.flatMap { ROASReport.Grouping(rawValue: $0.value) } ?? .campaign
        let sort = period.query.first { $0.name == "sort" }?.value ?? "spend"
        let report = try services.app.roas.dashboardReport(project: period.project, since: since, until: until, by: grouping)
        let length = period.range.until.milliseconds - period.range.since.milliseconds
        let earlier = try services.app.roas.dashboardReport(
            project: period.project, since: calendar.dateText(Timestamp(milliseconds: period.range.since.milliseconds - length)),
            until: calendar.dateText(period.range.since.adding(seconds: -1)), by: .network)
        var sorted = report
        sorted.rows = sortedRows(report.rows, by: sort)
        return ROASModel(period: period, since: since, until: until, grouping: grouping, sort: sort, report: sorted, before: earlier.totals)
    }

    /// Largest first; rows without the figure (no spend, no installs) last.
    static func sortedRows(_ rows: [ROASReport.Row], by key: String) -> [ROASReport.Row] {
        func value(_ row: ROASReport.Row) -> Double {
            let figure: Double? =
                switch key {
                case "installs": Double(row.installs)
                case "cpi": row.cpi
                case "paying_users": Double(row.payingInstalls)
                case "revenue_d7": row.revenue[7] ?? 0
                case "revenue_d30": row.revenue[30] ?? 0
                case "refunds": row.refunds
                case "roas_d0": row.roas(0)
                case "roas_d7": row.roas(7)
                case "roas_d30": row.roas(30)
                default: row.hasCost ? row.spend : nil
                }
            return figure ?? -.infinity
        }
        return rows.enumerated().sorted { (value($0.element), -$0.offset) > (value($1.element), -$1.offset) }.map(\.element)
    }
}
