import App
import Attribution
import HTTP
import StoreContracts

/// Clicks and installs by platform, OS version, country and referring site, and events by name,
/// for a period beside the one before it: sortable tables with a bar per row (docs/dashboard.md,
/// "Breakdowns and cohorts"). From the tallies, never the rows; `BreakdownsModel` decides what
/// shows, this renders it.
enum BreakdownsPage {
    static func show(_ services: Services) -> PeriodPage {
        let auth = DashboardAuth(services: services)
        return { _, viewer, period in
            let model = try BreakdownsModel.load(period, services: services)
            return DashboardPage.render(
                title: "Breakdowns · \(model.project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (model.project.id, model.project.name, "Breakdowns"), body: render(model, prefix: auth.prefix))
        }
    }

    static func render(_ model: BreakdownsModel, prefix: String) -> HTML {
        let (project, calendar, range) = (model.project, model.period.calendar, model.period.range)
        let projectBase = "\(prefix)/projects/\(project.id)"
        let base = "\(projectBase)/breakdowns"
        let here: HTML = "\(base)?\(range.query)&amp;by=\(model.view)"
        let table: HTML
        switch model.table {
        case .property(let property, let rows):
            table = propertyTable(property, rows, model, here: here, projectBase: projectBase)
        case .events(let rows):
            table = eventTable(rows, model, here: here, projectBase: projectBase)
        }
        let tabs = BreakdownsModel.views.map { entry -> HTML in
            #"<a href="\#(base)?\#(range.query)&amp;by=\#(entry.key)"\#(if: entry.key == model.view, #" aria-current="page""#)>\#(entry.label)</a>"#
        }
        return """
            <h1>Breakdowns</h1><div class="ranges">\(range.picker(base: base, calendar: calendar, carry: [("by", model.view)]))</div>\
            <div class="ranges tabs">\(tabs)</div>\
            <p class="muted">\(model.label): \(calendar.dateText(range.since)) to \
            \(calendar.dateText(range.until.adding(seconds: -1))), \(calendar.identifier), beside the \
            period of the same length before it. Bots are not counted; test installs neither.</p>\(table)
            """
    }

    static func propertyTable(
        _ property: BreakdownProperty, _ rows: [BreakdownRow], _ model: BreakdownsModel, here: HTML, projectBase: String
    ) -> HTML {
        guard !rows.isEmpty else {
            return #"<p class="muted">No clicks or installs in this period yet. <a href="\#(projectBase)/links">Make a link</a> and share it.</p>"#
        }
        let body = rows.prefix(BreakdownsModel.shownRows).map { row -> HTML in
            """
            <tr><td>\(property.display(row.value))</td><td class="n">\(row.clicks)</td><td class="n">\(row.installs)</td>\
            <td class="n">\(row.clicks > 0 ? FunnelChart.rate(row.installs, of: row.clicks) : "–")</td>\
            <td class="n">\(OverviewRoutes.change(row.installs, row.previousInstalls))</td>\
            <td class="hide-narrow">\(SVGChart.meter([Double(row.clicks), Double(row.installs)], of: Double(model.top)))</td></tr>
            """
        }
        let head = sortableHead(
            [("value", property.label, false), ("clicks", "Clicks", true), ("installs", "Installs", true), ("rate", "Installs per click", true)],
            here: here, sort: model.sort)
        return """
            <table><thead><tr>\(head)<th class="n">Installs vs before</th>\
            <th class="hide-narrow"><span class="legend"><span><i class="k0"></i>Clicks</span><span><i class="k1"></i>Installs</span></span></th>\
            </tr></thead><tbody>\(body)</tbody></table>\(more(model.rowCount))
            """
    }

    static func eventTable(_ rows: [EventBreakdownRow], _ model: BreakdownsModel, here: HTML, projectBase: String) -> HTML {
        guard !rows.isEmpty else {
            return
                #"<p class="muted">No events in this period yet: the <a href="\#(projectBase)/connect">Connect your app</a> page shows how an app sends them.</p>"#
        }
        let body = rows.prefix(BreakdownsModel.shownRows).map { row -> HTML in
            """
            <tr><td>\(row.name)</td><td class="n">\(row.count)</td><td class="n">\(row.installs)</td>\
            <td class="n">\(row.revenue.isEmpty ? "–" : OverviewRoutes.money(row.revenue))</td>\
            <td class="n">\(OverviewRoutes.change(row.count, row.previousCount))</td>\
            <td class="hide-narrow">\(SVGChart.meter([Double(row.count)], of: Double(model.top), colorOffset: 3))</td></tr>
            """
        }
        let head = sortableHead(
            [("name", "Event", false), ("count", "Count", true), ("installs", "Installs doing it first", true), ("revenue", "Revenue", true)],
            here: here, sort: model.sort)
        return """
            <table><thead><tr>\(head)<th class="n">Count vs before</th><th class="hide-narrow"></th></tr></thead><tbody>\(body)</tbody></table>\
            \(more(model.rowCount))<p class="muted">Installs doing it first: installs whose first event of that name came in this period \
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
        count > BreakdownsModel.shownRows ? #"<p class="muted">\#(count - BreakdownsModel.shownRows) more not shown.</p>"# : ""
    }
}
