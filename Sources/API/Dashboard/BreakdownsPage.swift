import App
import Attribution
import HTTP
import StoreContracts

/// Clicks and installs by platform, OS version, country and referring site, and events by name,
/// for a period beside the one before it: sortable tables with a bar per row (docs/dashboard.md,
/// "Breakdowns and cohorts"). From the tallies (migration 0039), never the rows.
enum BreakdownsPage {
    static let views: [(key: String, label: String)] =
        [("events", "Events")] + BreakdownProperty.allCases.map { ($0.rawValue, $0.label) }

    static func show(_ services: Services) -> PeriodPage {
        let auth = DashboardAuth(services: services)
        return { _, viewer, period in
            let (project, calendar, range) = (period.project, period.calendar, period.range)
            let view = period.item("by") ?? "events"
            guard let current = views.first(where: { $0.key == view }) else {
                return DashboardPage.message(
                    status: .unprocessableContent, title: "Unknown breakdown",
                    text: "by must be one of \(views.map(\.key).joined(separator: ", "))", prefix: auth.prefix, viewer: viewer)
            }
            let property = BreakdownProperty(rawValue: view)
            let sums = try services.app.reports.breakdowns(
                project: project, dimensions: property.map { [$0.clicksDimension, $0.installsDimension] } ?? Breakdown.eventDimensions,
                since: range.since, until: range.until)
            let projectBase = "\(auth.prefix)/projects/\(project.id)"
            let base = "\(projectBase)/breakdowns"
            let here: HTML = "\(base)?\(range.query)&amp;by=\(view)"
            let sort = period.item("sort") ?? ""
            let table: HTML
            if let property {
                table = propertyTable(
                    property, Breakdown.rows(property, current: sums.current, previous: sums.previous), here: here, sort: sort,
                    projectBase: projectBase)
            } else {
                table = eventTable(
                    Breakdown.events(current: sums.current, previous: sums.previous, currency: project.settings.currency),
                    here: here, sort: sort, currency: project.settings.currency, projectBase: projectBase)
            }
            let tabs = views.map { entry -> HTML in
                #"<a href="\#(base)?\#(range.query)&amp;by=\#(entry.key)"\#(if: entry.key == view, #" aria-current="page""#)>\#(entry.label)</a>"#
            }
            let body: HTML = """
                <h1>Breakdowns</h1><div class="ranges">\(range.picker(base: base, calendar: calendar, carry: [("by", view)]))</div>\
                <div class="ranges tabs">\(tabs)</div>\
                <p class="muted">\(current.label): \(calendar.dateText(range.since)) to \
                \(calendar.dateText(range.until.adding(seconds: -1))), \(calendar.identifier), beside the \
                period of the same length before it. Bots are not counted; test installs neither.</p>\(table)
                """
            return DashboardPage.render(
                title: "Breakdowns · \(project.name)", prefix: auth.prefix, viewer: viewer, projectNav: (project.id, project.name, "Breakdowns"),
                body: body)
        }
    }

    /// At most this many rows; the rest are counted below the table.
    static let shownRows = 100

    static func propertyTable(
        _ property: BreakdownProperty, _ rows: [BreakdownRow], here: HTML, sort: String, projectBase: String
    ) -> HTML {
        guard !rows.isEmpty else {
            return #"<p class="muted">No clicks or installs in this period yet. <a href="\#(projectBase)/links">Make a link</a> and share it.</p>"#
        }
        let key = ["value", "clicks", "installs", "rate"].contains(sort) ? sort : "clicks"
        func rate(_ row: BreakdownRow) -> Double { row.clicks > 0 ? Double(row.installs) / Double(row.clicks) : 0 }
        let sorted: [BreakdownRow]
        switch key {
        case "value": sorted = rows.sorted { property.display($0.value) < property.display($1.value) }
        case "installs": sorted = rows.sorted { ($0.installs, $0.clicks, $1.value) > ($1.installs, $1.clicks, $0.value) }
        case "rate": sorted = rows.sorted { (rate($0), $0.installs, $1.value) > (rate($1), $1.installs, $0.value) }
        default: sorted = rows
        }
        let top = max(rows.map(\.clicks).max() ?? 0, rows.map(\.installs).max() ?? 0, 1)
        let body = sorted.prefix(shownRows).map { row -> HTML in
            """
            <tr><td>\(property.display(row.value))</td><td class="n">\(row.clicks)</td><td class="n">\(row.installs)</td>\
            <td class="n">\(row.clicks > 0 ? FunnelChart.rate(row.installs, of: row.clicks) : "–")</td>\
            <td class="n">\(OverviewRoutes.change(row.installs, row.previousInstalls))</td>\
            <td class="hide-narrow">\(SVGChart.meter([Double(row.clicks), Double(row.installs)], of: Double(top)))</td></tr>
            """
        }
        let head = sortableHead(
            [("value", property.label, false), ("clicks", "Clicks", true), ("installs", "Installs", true), ("rate", "Installs per click", true)],
            here: here, sort: key)
        return """
            <table><thead><tr>\(head)<th class="n">Installs vs before</th>\
            <th class="hide-narrow"><span class="legend"><span><i class="k0"></i>Clicks</span><span><i class="k1"></i>Installs</span></span></th>\
            </tr></thead><tbody>\(body)</tbody></table>\(more(rows.count))
            """
    }

    static func eventTable(_ rows: [EventBreakdownRow], here: HTML, sort: String, currency: String, projectBase: String) -> HTML {
        guard !rows.isEmpty else {
            return
                #"<p class="muted">No events in this period yet: the <a href="\#(projectBase)/connect">Connect your app</a> page shows how an app sends them.</p>"#
        }
        let key = ["name", "count", "installs", "revenue"].contains(sort) ? sort : "count"
        func revenue(_ row: EventBreakdownRow) -> Double { row.revenue[currency] ?? row.revenue.values.reduce(0, +) }
        let sorted: [EventBreakdownRow]
        switch key {
        case "name": sorted = rows.sorted { $0.name < $1.name }
        case "installs": sorted = rows.sorted { ($0.installs, $0.count, $1.name) > ($1.installs, $1.count, $0.name) }
        case "revenue": sorted = rows.sorted { (revenue($0), $0.count, $1.name) > (revenue($1), $1.count, $0.name) }
        default: sorted = rows
        }
        let top = max(rows.map(\.count).max() ?? 0, 1)
        let body = sorted.prefix(shownRows).map { row -> HTML in
            """
            <tr><td>\(row.name)</td><td class="n">\(row.count)</td><td class="n">\(row.installs)</td>\
            <td class="n">\(row.revenue.isEmpty ? "–" : OverviewRoutes.money(row.revenue))</td>\
            <td class="n">\(OverviewRoutes.change(row.count, row.previousCount))</td>\
            <td class="hide-narrow">\(SVGChart.meter([Double(row.count)], of: Double(top), colorOffset: 3))</td></tr>
            """
        }
        let head = sortableHead(
            [("name", "Event", false), ("count", "Count", true), ("installs", "Installs doing it first", true), ("revenue", "Revenue", true)],
            here: here, sort: key)
        return """
            <table><thead><tr>\(head)<th class="n">Count vs before</th><th class="hide-narrow"></th></tr></thead><tbody>\(body)</tbody></table>\
            \(more(rows.count))<p class="muted">Installs doing it first: installs whose first event of that name came in this period \
            (over all time, every install that ever did it). Revenue is what the events declared, per currency.</p>
            """
    }

    static func sortableHead(_ columns: [(key: String, label: String, numeric: Bool)], here: HTML, sort: String) -> HTML {
        HTML(
            joining: columns.map { column -> HTML in
                let label = column.key == sort ? "\(column.label) ▾" : column.label
                return #"<th\#(if: column.numeric, #" class="n""#)><a href="\#(here)&amp;sort=\#(column.key)">\#(label)</a></th>"#
            })
    }

    private static func more(_ count: Int) -> HTML {
        count > shownRows ? #"<p class="muted">\#(count - shownRows) more not shown.</p>"# : ""
    }
}
