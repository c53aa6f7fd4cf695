import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// Installs grouped by the local day or week they came, with day-N retention, events per install
/// and revenue per install by day N (docs/dashboard.md, "Breakdowns and cohorts"): the project's
/// from the cohort tallies of migration 0039 and the hourly install counts, a campaign's or a
/// link's from its installs' rows.
enum CohortsPage {
    static let metrics: [(key: String, label: String)] = [
        ("retention", "Retention"), ("events", "Events per install"), ("revenue", "Revenue per install"),
    ]
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
            let (project, calendar, range) = (period.project, period.calendar, period.range)
            let now = services.now(for: project)
            let item = period.item
            let group = item("group") ?? (range.bucket == .week ? "week" : "day")
            let metric = item("metric") ?? "retention"
            guard ["day", "week"].contains(group), let shown = metrics.first(where: { $0.key == metric }) else {
                return DashboardPage.message(
                    status: .unprocessableContent, title: "Unknown cohort view",
                    text: "group must be day or week, metric one of retention, events, revenue", prefix: auth.prefix, viewer: viewer)
            }
            let boundaries = cohortBoundaries(range, weeks: group == "week", calendar: calendar)
            // A link's or a campaign's installs instead of the project's. Campaigns as the stats name
            // them (a template's campaign included), from the past of the 30 days kept summed ahead:
            // today's live part would cost every view ~12 ms at 10 million clicks.
            let month = try DashboardRange.resolve([("range", "30d")], calendar: calendar, now: now)
            let links = try services.app.reports.dashboardStats(
                project: project, since: month.since, until: max(month.since, now.roundedDown(toMultipleOf: 86_400_000))
            ).links
            let linkCode = item("link")?.trimmingCharacters(in: .whitespaces) ?? ""
            let campaign = item("campaign") ?? ""
            var scope: (ids: [String], label: String)?
            if !linkCode.isEmpty {
                guard
                    let link = try services.app.links.search(projectID: project.id, text: linkCode, limit: 100).first(where: {
                        $0.shortCode == linkCode
                    })
                else {
                    return DashboardPage.message(
                        status: .unprocessableContent, title: "Unknown link", text: "the project has no link \(linkCode)",
                        prefix: auth.prefix, viewer: viewer)
                }
                scope = ([link.id], "installs credited to the link \(linkCode)")
            } else if !campaign.isEmpty {
                scope = (links.filter { $0.utmCampaign == campaign }.map(\.linkID), "installs credited to the links of the campaign \(campaign)")
            }
            let table = try services.app.reports.cohorts(project: project, boundaries: boundaries, linkIDs: scope?.ids)
            let projectBase = "\(auth.prefix)/projects/\(project.id)"
            let base = "\(projectBase)/cohorts"
            let scopeItems = [("link", linkCode), ("campaign", linkCode.isEmpty ? campaign : "")].filter { !$0.1.isEmpty }
            func link(_ label: String, _ name: String, _ value: String, current: Bool) -> HTML {
                let carried = ([("group", group), ("metric", metric)] + scopeItems).map {
                    $0.0 == name ? ($0.0, Escape.queryValue(value)) : ($0.0, Escape.queryValue($0.1))
                }
                let href: HTML = "\(base)?\(range.query)" + HTML(joining: carried.map { item -> HTML in "&amp;\(item.0)=\(item.1)" })
                return #"<a href="\#(href)"\#(if: current, #" aria-current="page""#)>\#(label)</a>"#
            }
            let groups = [("day", "By day"), ("week", "By week")].map { link($0.1, "group", $0.0, current: $0.0 == group) }
            let metricLinks = metrics.map { link($0.label, "metric", $0.key, current: $0.key == metric) }
            let body: HTML = """
                <h1>Cohorts</h1><div class="ranges">\
                \(range.picker(base: base, calendar: calendar, carry: [("group", group), ("metric", metric)] + scopeItems, presets: presets))</div>\
                <div class="ranges tabs">\(groups)</div><div class="ranges tabs">\(metricLinks)</div>\
                \(scopeForm(base: base, range: range, group: group, metric: metric, links: links, linkCode: linkCode, campaign: campaign))\
                <p>\(scope.map { "Cohorts of the " + $0.label } ?? "Cohorts of every install of the project")</p>\
                \(cohortTable(table, metric: metric, label: shown.label, calendar: calendar, weeks: group == "week", projectBase: projectBase))\
                <p class="muted">A cohort is the installs of one \(group == "week" ? "week" : "day") in \(calendar.identifier). \
                Day N is the N-th 24 hours after each install: retention is the share of the cohort with any event in it; events and \
                revenue per install count everything from the install to the end of day N. A cell stays empty until every install \
                of its cohort has lived through that day. Revenue is what events declared, per currency; test installs are left out.</p>
                """
            return DashboardPage.render(
                title: "Cohorts · \(project.name)", prefix: auth.prefix, viewer: viewer, projectNav: (project.id, project.name, "Cohorts"), body: body
            )
        }
    }

    /// All installs, a campaign's (its links' UTM campaign) or one link's: a GET form, no script.
    static func scopeForm(
        base: String, range: DashboardRange, group: String, metric: String, links: [ProjectStats.LinkCounts], linkCode: String, campaign: String
    ) -> HTML {
        let campaigns = Set(links.compactMap(\.utmCampaign)).sorted()
        let options =
            [#"<option value="">All installs</option>"# as HTML]
            + campaigns.map { name -> HTML in
                #"<option value="\#(name)"\#(if: name == campaign && linkCode.isEmpty, " selected")>\#(name)</option>"#
            }
        var hidden = [("range", range.key), ("group", group), ("metric", metric)]
        if let from = range.from, let to = range.to { hidden += [("from", from), ("to", to)] }
        return """
            <form class="ranges" method="get" action="\(base)">\
            \(hidden.map { item -> HTML in #"<input type="hidden" name="\#(item.0)" value="\#(item.1)">"# })\
            <label>Campaign <select name="campaign">\(options)</select></label> \
            <label>or link <input name="link" value="\(linkCode)" placeholder="short code" size="12"></label> <button>Show</button></form>
            """
    }

    /// The range's local days, or its weeks from its first day (the last one cut at the range's end).
    static func cohortBoundaries(_ range: DashboardRange, weeks: Bool, calendar: LocalCalendar) -> [Timestamp] {
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

    static func cohortTable(
        _ table: CohortTable, metric: String, label: String, calendar: LocalCalendar, weeks: Bool, projectBase: String
    ) -> HTML {
        guard table.rows.contains(where: { $0.installs > 0 }) else {
            return
                #"<p class="muted">No installs in this period yet: the <a href="\#(projectBase)/connect">Connect your app</a> page shows how to send the first.</p>"#
        }
        let head = CohortTable.days.map { day -> HTML in #"<th class="n">Day \#(day)</th>"# }
        let rows = table.rows.map { row -> HTML in
            let name = calendar.dateText(row.start) + (weeks ? " week" : "")
            let cells = CohortTable.days.map { day -> HTML in
                guard row.installs > 0 else { return #"<td class="n muted">–</td>"# }
                guard row.complete[day] == true else { return #"<td class="n muted" title="not over yet"></td>"# }
                switch metric {
                case "events":
                    return #"<td class="n">\#(String(format: "%.2f", row.eventsPerInstall(day) ?? 0))</td>"#
                case "revenue":
                    let revenue = row.revenuePerInstall(day)
                    return #"<td class="n">\#(revenue.isEmpty ? "0" : revenueText(revenue))</td>"#
                default:
                    let share = row.retention(day) ?? 0
                    return #"<td class="n heat\#(min(5, Int((share * 10).rounded(.up))))">\#(String(format: "%.1f %%", share * 100))</td>"#
                }
            }
            return #"<tr><th>\#(name)</th><td class="n">\#(row.installs)</td>\#(cells)</tr>"#
        }
        return """
            <table class="cohorts" aria-label="\(label)"><thead><tr><th>Installed</th><th class="n">Installs</th>\(head)</tr></thead>\
            <tbody>\(rows)</tbody></table>
            """
    }

    /// Per install, in each currency's decimals plus two (cents per install read as 0.0042).
    static func revenueText(_ amounts: [String: Double]) -> String {
        amounts.sorted { $0.key < $1.key }.map { currency, amount in
            "\(currency) " + String(format: "%.\(MoneyAmount.decimals(currency) + 2)f", amount)
        }.joined(separator: ", ")
    }
}
