import App
import Attribution
import StoreContracts

/// What the breakdowns page shows for a period, loaded and decided without HTML: the view asked
/// for, its rows beside the period before in the order asked for, and the largest count the bars
/// are drawn against. `BreakdownsPage` renders it.
struct BreakdownsModel {
    enum Table: Equatable {
        case property(BreakdownProperty, [BreakdownRow])
        case events([EventBreakdownRow])
    }

    static let views: [(key: String, label: String)] =
        [("events", "Events")] + BreakdownProperty.allCases.map { ($0.rawValue, $0.label) }

    let period: DashboardPeriodPage
    /// The view's key (`events` or a property) and its label.
    let view: String
    let label: String
    /// The column the rows are sorted by: always one the table has.
    let sort: String
    let table: Table
    /// How many rows the view has in all; the page shows at most `shownRows`.
    let rowCount: Int
    /// The largest value a row's bar is drawn against (never 0).
    let top: Int

    static let shownRows = 100

    var project: Project { period.project }

    /// The model of the view the query names, or a `PageProblem` naming the views there are.
    static func load(_ period: DashboardPeriodPage, services: Services) throws -> BreakdownsModel {
        let view = period.item("by") ?? "events"
        guard let current = views.first(where: { $0.key == view }) else {
            throw PageProblem(title: "Unknown breakdown", text: "by must be one of \(views.map(\.key).joined(separator: ", "))")
        }
        let property = BreakdownProperty(rawValue: view)
        let sums = try services.app.reports.breakdowns(
            project: period.project, dimensions: property.map { [$0.clicksDimension, $0.installsDimension] } ?? Breakdown.eventDimensions,
            since: period.range.since, until: period.range.until)
        let asked = period.item("sort") ?? ""
        if let property {
            let rows = Breakdown.rows(property, current: sums.current, previous: sums.previous)
            let sort = ["value", "clicks", "installs", "rate"].contains(asked) ? asked : "clicks"
            return BreakdownsModel(
                period: period, view: view, label: current.label, sort: sort,
                table: .property(property, sorted(rows, property, by: sort)), rowCount: rows.count,
                top: max(rows.map(\.clicks).max() ?? 0, rows.map(\.installs).max() ?? 0, 1))
        }
        let currency = period.project.settings.currency
        let rows = Breakdown.events(current: sums.current, previous: sums.previous, currency: currency)
        let sort = ["name", "count", "installs", "revenue"].contains(asked) ? asked : "count"
        return BreakdownsModel(
            period: period, view: view, label: current.label, sort: sort, table: .events(sorted(rows, by: sort, currency: currency)),
            rowCount: rows.count, top: max(rows.map(\.count).max() ?? 0, 1))
    }

    /// Clicks first (the order `Breakdown.rows` gives), else by the column asked for.
    static func sorted(_ rows: [BreakdownRow], _ property: BreakdownProperty, by sort: String) -> [BreakdownRow] {
        func rate(_ row: BreakdownRow) -> Double { row.clicks > 0 ? Double(row.installs) / Double(row.clicks) : 0 }
        switch sort {
        case "value": return rows.sorted { property.display($0.value) < property.display($1.value) }
        case "installs": return rows.sorted { ($0.installs, $0.clicks, $1.value) > ($1.installs, $1.clicks, $0.value) }
        case "rate": return rows.sorted { (rate($0), $0.installs, $1.value) > (rate($1), $1.installs, $0.value) }
        default: return rows
        }
    }

    /// Count first (the order `Breakdown.events` gives), else by the column asked for; revenue in
    /// the project's currency where an event has it, else all its currencies added.
    static func sorted(_ rows: [EventBreakdownRow], by sort: String, currency: String) -> [EventBreakdownRow] {
        func revenue(_ row: EventBreakdownRow) -> Double { row.revenue[currency] ?? row.revenue.values.reduce(0, +) }
        switch sort {
        case "name": return rows.sorted { $0.name < $1.name }
        case "installs": return rows.sorted { ($0.installs, $0.count, $1.name) > ($1.installs, $1.count, $0.name) }
        case "revenue": return rows.sorted { (revenue($0), $0.count, $1.name) > (revenue($1), $1.count, $0.name) }
        default: return rows
        }
    }
}
