import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// Installs grouped by the local day or week they came, with day-N retention, events per install
/// and revenue per install by day N (docs/dashboard.md, "Breakdowns and cohorts"): the project's
/// from the cohort tallies and the hourly install counts, a campaign's or a link's from its
/// installs' rows. `CohortsModel` decides what shows, this renders it.
enum CohortsPage {
    static let presets: [(key: String, label: String)] = [("7d", "7 days"), ("30d", "30 days"), ("90d", "90 days")]

    /// The range items a cohort table is read from: by hour makes no cohort, so 24 h (and no
    /// range) show 30 days.
    static let days: @Sendable ([(String, String)]) -> [(String, String)] = { items in
        let days = items.filter { $0.0 != "range" || $0.1 != "24h" }
        return days.contains { $0.0 == "range" } ? days : days + [("range", "30d")]
    }

    static func show(_ services: Services) -> PeriodPage {
        let auth = DashboardAuth(services: services)
        return { _, viewer, period in
            let model = try CohortsModel.load(period, services: services)
            return DashboardPage.render(
                title: "Cohorts · \(model.project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (model.project.id, model.project.name, "Cohorts"), body: render(model, prefix: auth.prefix))
        }
    }

    static func render(_ model: CohortsModel, prefix: String) -> HTML {
        let (calendar, range) = (model.period.calendar, model.period.range)
        let projectBase = "\(prefix)/projects/\(model.project.id)"
        let base = "\(projectBase)/cohorts"
        func link(_ label: String, _ name: String, _ value: String, current: Bool) -> HTML {
            let carried = model.carried.map { $0.0 == name ? ($0.0, Escape.queryValue(value)) : ($0.0, Escape.queryValue($0.1)) }
            let href: HTML = "\(base)?\(range.query)" + HTML(joining: carried.map { item -> HTML in "&amp;\(item.0)=\(item.1)" })
            return #"<a href="\#(href)"\#(if: current, #" aria-current="page""#)>\#(label)</a>"#
        }
        let groups = [("day", "By day"), ("week", "By week")].map { link($0.1, "group", $0.0, current: $0.0 == model.group) }
        let metricLinks = CohortsModel.metrics.map { link($0.label, "metric", $0.key, current: $0.key == model.metric) }
        return """
            <h1>Cohorts</h1><div class="ranges">\
            \(range.picker(base: base, calendar: calendar, carry: model.carried, presets: presets))</div>\
            <div class="ranges tabs">\(groups)</div><div class="ranges tabs">\(metricLinks)</div>\
            \(scopeForm(model, base: base))\
            <p>\(model.scope.map { "Cohorts of the " + $0 } ?? "Cohorts of every install of the project")</p>\
            \(cohortTable(model, projectBase: projectBase))\
            <p class="muted">A cohort is the installs of one \(model.weeks ? "week" : "day") in \(calendar.identifier). \
            Day N is the N-th 24 hours after each install: retention is the share of the cohort with any event in it; events and \
            revenue per install count everything from the install to the end of day N. A cell stays empty until every install \
            of its cohort has lived through that day. Revenue is what events declared, per currency; test installs are left out.</p>
            """
    }

    /// All installs, a campaign's (its links' UTM campaign) or one link's: a GET form, no script.
    static func scopeForm(_ model: CohortsModel, base: String) -> HTML {
        let range = model.period.range
        let options =
            [#"<option value="">All installs</option>"# as HTML]
            + model.campaigns.map { name -> HTML in
                #"<option value="\#(name)"\#(if: name == model.campaign && model.linkCode.isEmpty, " selected")>\#(name)</option>"#
            }
        var hidden = [("range", range.key), ("group", model.group), ("metric", model.metric)]
        if let from = range.from, let to = range.to { hidden += [("from", from), ("to", to)] }
        return """
            <form class="ranges" method="get" action="\(base)">\
            \(hidden.map { item -> HTML in #"<input type="hidden" name="\#(item.0)" value="\#(item.1)">"# })\
            <label>Campaign <select name="campaign">\(options)</select></label> \
            <label>or link <input name="link" value="\(model.linkCode)" placeholder="short code" size="12"></label> <button>Show</button></form>
            """
    }

    static func cohortTable(_ model: CohortsModel, projectBase: String) -> HTML {
        guard model.table.rows.contains(where: { $0.installs > 0 }) else {
            return
                #"<p class="muted">No installs in this period yet: the <a href="\#(projectBase)/connect">Connect your app</a> page shows how to send the first.</p>"#
        }
        let head = CohortTable.days.map { day -> HTML in #"<th class="n">Day \#(day)</th>"# }
        let rows = model.table.rows.map { row -> HTML in
            let name = model.period.calendar.dateText(row.start) + (model.weeks ? " week" : "")
            let cells = CohortTable.days.map { day -> HTML in
                switch model.cell(row, day: day) {
                case .none: return #"<td class="n muted">–</td>"#
                case .notOver: return #"<td class="n muted" title="not over yet"></td>"#
                case .value(let text, let heat?): return #"<td class="n heat\#(heat)">\#(text)</td>"#
                case .value(let text, nil): return #"<td class="n">\#(text)</td>"#
                }
            }
            return #"<tr><th>\#(name)</th><td class="n">\#(row.installs)</td>\#(cells)</tr>"#
        }
        return """
            <table class="cohorts" aria-label="\(model.metricLabel)"><thead><tr><th>Installed</th><th class="n">Installs</th>\(head)</tr></thead>\
            <tbody>\(rows)</tbody></table>
            """
    }
}
