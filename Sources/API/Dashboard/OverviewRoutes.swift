import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// The projects list and a project's overview: counts for a range, a chart by hour or day, the
/// funnel, installs by source and match type, revenue per currency, and the links table (sortable,
/// CSV). Counts come from the same `ReportService.stats` as `GET …/stats`.
enum OverviewRoutes {
    static func projects(_ services: Services) -> SignedInPage {
        let auth = DashboardAuth(services: services)
        return { _, viewer in
            let projects = try services.app.projects.list().filter { viewer.canRead(projectID: $0.id) }
            var rows: HTML = ""
            for project in projects {
                // The last 7 days in the project's time zone, today so far included.
                let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
                let week = try DashboardRange.resolve([("range", "7d")], calendar: calendar, now: services.now(for: project))
                DashboardWarmup.watch("7d", projectID: project.id, services)
                let stats = try services.app.reports.dashboardStats(project: project, since: week.since, until: week.until)
                let daily = try services.app.reports.dashboardSeries(project: project, boundaries: week.boundaries).map { Double($0.counts.clicks) }
                let totals = stats.totals
                rows += """
                    <tr><td><a href="\(auth.prefix)/projects/\(project.id)">\(project.name)</a>\
                    \(project.testMode ? #" <span class="muted">(test)</span>"# : "" as HTML)</td>\
                    <td class="n">\(totals.clicks)</td><td class="n">\(totals.installs)</td><td class="n">\(share(totals))</td>\
                    <td class="n">\(money(totals.paymentRevenue))</td><td class="n">\(money(totals.eventRevenue))</td>\
                    <td class="hide-narrow">\(SVGChart.sparkline(daily))</td></tr>
                    """
            }
            if projects.isEmpty {
                rows =
                    #"<tr><td colspan="7" class="muted">No projects yet: create one below (or with the admin API, or <code>attributiond project create</code>).</td></tr>"#
            }
            let newProject: HTML = viewer.session.user == nil ? NewProjectPages.form(prefix: auth.prefix, csrf: DashboardPage.csrfField(viewer)) : ""
            let body: HTML = """
                <h1>Projects</h1><p class="muted">The last 7 days in each project's time zone, today included.</p><table><thead><tr><th>Project</th><th class="n">Clicks</th>\
                <th class="n">Installs</th><th class="n">Attributed</th><th class="n">Payments</th><th class="n">Event revenue</th>\
                <th class="hide-narrow">Clicks by day</th></tr>\
                </thead><tbody>\(rows)</tbody></table>\
                \(newProject)
                """
            return DashboardPage.render(title: "Projects", prefix: auth.prefix, viewer: viewer, body: body)
        }
    }

    static func overview(_ services: Services) -> PeriodPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, period in
            let (project, query, calendar, range) = (period.project, period.query, period.calendar, period.range)
            DashboardWarmup.watch(range.key, projectID: project.id, services)
            let model = try OverviewModel.load(period, services: services)
            let (stats, totals, links, campaignGroups) = (model.stats, model.totals, model.links, model.campaigns)
            let (sort, campaignSort) = (model.sort, model.campaignSort)
            let rangeName = range.from.map { "\($0)-\(range.to ?? "")" } ?? range.key
            switch query.first(where: { $0.name == "format" })?.value {
            case "csv": return csv(links, project: project, range: rangeName)
            case "campaigns.csv": return campaignCSV(campaignGroups, project: project, range: rangeName)
            default: break
            }
            let labels = model.buckets.map(\.label)
            let overTime = [
                ("Clicks", model.series(\.clicks)), ("Attributed installs", model.series(\.attributedInstalls)),
                ("Organic installs", model.series(\.organicInstalls)),
            ]
            let events = model.series(\.events)
            let moneyBuckets = model.buckets.map { (payments: $0.counts.paymentRevenue, eventValues: $0.counts.eventRevenue) }
            let currency = project.settings.currency
            let base = "\(auth.prefix)/projects/\(project.id)"
            let rangeLinks = range.picker(base: base, calendar: calendar)
            let cards = model.cards.map { card -> HTML in
                #"<div class="card"><small>\#(card.title)</small><b>\#(card.value)</b><small>\#(card.note)</small><small class="change">\#(card.change)</small></div>"#
            }
            let funnel = model.funnel
            let linkInstalls = model.linkInstalls
            let funnelRows = funnel.enumerated().map { index, step -> HTML in
                """
                <tr><th>\(step.name)</th><td class="n">\(step.count)</td>\
                <td class="n">\(index == 0 ? "–" : FunnelChart.rate(step.count, of: funnel[index - 1].count))</td>\
                <td class="n">\(index == 0 ? "–" : FunnelChart.rate(step.count, of: totals.clicks))</td></tr>
                """
            }
            let body: HTML = """
                <h1>\(project.name)</h1>\(try GettingStarted.checklist(project, services, request: request, viewer: viewer, prefix: auth.prefix, shown: totals))\
                <div class="ranges">\(rangeLinks)</div><div class="cards">\(cards)</div>\
                <p class="muted">\(calendar.dateText(range.since)) \(calendar.timeText(range.since)) to \
                \(calendar.dateText(range.until)) \(calendar.timeText(range.until)), \(calendar.identifier)</p>\
                <h2>Over time (\(range.bucketName))</h2>\
                <div class="chart"><div class="legend"><span><i class="k0"></i>Clicks</span><span><i class="k1"></i>Attributed installs</span>\
                <span><i class="k2"></i>Organic installs</span></div>\
                <div class="wide-chart">\(SVGChart.bars(labels: labels, series: overTime))</div>\
                <div class="narrow-chart">\(SVGChart.bars(labels: labels, series: overTime, width: 400, height: 240, labelCount: 4))</div></div>\
                <div class="grid2"><div class="chart"><div class="legend"><span><i class="k3"></i>Events</span></div>\
                \(SVGChart.bars(labels: labels, series: [("Events", events)], colorOffset: 3, width: 480))</div>\
                \(MoneyCharts.perCurrency(labels: labels, buckets: moneyBuckets, projectCurrency: currency))</div>\
                <div class="grid2"><div><h2>Funnel</h2><div class="chart">\(FunnelChart.svg(funnel))</div>\
                <table><thead><tr><th>Step</th><th class="n">Count</th><th class="n">Of the step before</th><th class="n">Of clicks</th></tr></thead><tbody>\
                \(funnelRows)</tbody></table>\
                <p class="muted">Signups and paying installs are those of the period's installs; an install signed up once it \
                has a user or a <code>signup</code> event, and pays once it has a payment or an event with revenue. Events are charted at the time the app says they happened, held \
                between the install and their arrival.</p></div>\
                <div><h2>Installs by source</h2><table><tbody>\
                <tr><th>Link</th><td class="n">\(linkInstalls)</td></tr><tr><th>Apple Ads</th><td class="n">\(totals.appleAdsInstalls)</td></tr>\
                \(model.adPlatformInstalls.map { row -> HTML in #"<tr><th>\#(row.name)</th><td class="n">\#(row.installs)</td></tr>"# })\
                <tr><th>Organic</th><td class="n">\(totals.organicInstalls)</td></tr></tbody></table>\
                <h2>Attributed installs by match</h2><table><tbody>\
                <tr><th>Deterministic (an id or a click id)</th><td class="n">\(totals.deterministicInstalls)</td></tr>\
                <tr><th>Probabilistic (signals)</th><td class="n">\(totals.probabilisticInstalls)</td></tr></tbody></table>\
                <h2>Attributed installs by confidence</h2><table><tbody>\(confidenceRows(stats.installsByConfidence))</tbody></table></div></div>\
                <h2>Revenue by currency</h2>\(revenueTable(totals))\
                <h2>SKAN conversion values</h2>\(skanTable(stats.skanValues))\
                \(appleAdsTable(stats.appleAds))\
                <h2>Campaigns (the links' UTM parameters)</h2>\
                <p><a href="\(base)?\(range.query)&amp;csort=\(campaignSort)&amp;format=campaigns.csv">Download CSV</a></p>\
                \(campaignTable(campaignGroups, base: base, range: range.query, sort: campaignSort, costCurrency: project.settings.reportingCurrency))\
                <h2>Links</h2><p><a href="\(base)?\(range.query)&amp;sort=\(sort)&amp;format=csv">Download CSV</a></p>\
                \(linkTable(links, base: base, range: range.query, sort: sort))
                """
            return DashboardPage.render(
                title: project.name, prefix: auth.prefix, viewer: viewer,
                projectNav: (project.id, project.name, "Overview"), body: body)
        }
    }

    private static let columns: [(key: String, label: String)] = [
        ("code", "Link"), ("clicks", "Clicks"), ("installs", "Installs"), ("events", "Events"), ("revenue", "Payments"),
    ]

    static func sorted(_ links: [ProjectStats.LinkCounts], by key: String) -> [ProjectStats.LinkCounts] {
        func revenue(_ link: ProjectStats.LinkCounts) -> Double { link.counts.paymentRevenue.values.reduce(0, +) }
        switch key {
        case "code": return links.sorted { $0.shortCode < $1.shortCode }
        case "installs": return links.sorted { ($0.counts.attributedInstalls, $1.shortCode) > ($1.counts.attributedInstalls, $0.shortCode) }
        case "events": return links.sorted { ($0.counts.events, $1.shortCode) > ($1.counts.events, $0.shortCode) }
        case "revenue": return links.sorted { (revenue($0), $1.shortCode) > (revenue($1), $0.shortCode) }
        default: return links.sorted { ($0.counts.clicks, $1.shortCode) > ($1.counts.clicks, $0.shortCode) }
        }
    }

    private static func linkTable(_ links: [ProjectStats.LinkCounts], base: String, range: HTML, sort: String) -> HTML {
        let head = columns.map { column -> HTML in
            let numeric: HTML = column.key == "code" ? "" : #" class="n""#
            let label = column.key == sort ? "\(column.label) ▾" : column.label
            return #"<th\#(numeric)><a href="\#(base)?\#(range)&amp;sort=\#(column.key)">\#(label)</a></th>"#
        }
        let rows = links.prefix(200).map { link -> HTML in
            """
            <tr><td><a href="\(base)/links/\(link.linkID)">\(link.shortCode)</a></td>\
            <td class="n">\(link.counts.clicks)</td><td class="n">\(link.counts.attributedInstalls)</td><td class="n">\(link.counts.events)</td>\
            <td class="n">\(money(link.counts.paymentRevenue))</td></tr>
            """
        }
        let body: HTML = rows.isEmpty ? #"<tr><td colspan="5" class="muted">No links yet.</td></tr>"# : HTML(joining: rows)
        return "<table><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table>"
    }

    struct Campaign {
        let source, medium, campaign: String
        var counts = ProjectStats.Counts()
        /// The ROAS report's row of the network's campaign this UTM campaign joined (its spend, CPI
        /// and return, across its mediums), when the period has cost.
        var cost: ROASReport.Row? = nil
    }

    /// Links grouped by their UTM source, medium and campaign, sorted by `sort` (a column's key).
    static func campaigns(_ links: [ProjectStats.LinkCounts], by sort: String) -> [Campaign] {
        struct Key: Hashable { let source, medium, campaign: String }
        var groups: [Key: Campaign] = [:]
        for link in links {
            let key = Key(source: link.utmSource ?? "", medium: link.utmMedium ?? "", campaign: link.utmCampaign ?? "")
            groups[key, default: Campaign(source: key.source, medium: key.medium, campaign: key.campaign)].counts.add(link.counts)
        }
        func revenue(_ campaign: Campaign) -> Double { campaign.counts.paymentRevenue.values.reduce(0, +) }
        let all = Array(groups.values)
        switch sort {
        case "source": return all.sorted { ($0.source, $0.medium, $0.campaign) < ($1.source, $1.medium, $1.campaign) }
        case "installs": return all.sorted { ($0.counts.attributedInstalls, $1.campaign) > ($1.counts.attributedInstalls, $0.campaign) }
        case "events": return all.sorted { ($0.counts.events, $1.campaign) > ($1.counts.events, $0.campaign) }
        case "revenue": return all.sorted { (revenue($0), $1.campaign) > (revenue($1), $0.campaign) }
        default: return all.sorted { ($0.counts.clicks, $1.campaign) > ($1.counts.clicks, $0.campaign) }
        }
    }

    private static let campaignColumns: [(key: String, label: String)] = [
        ("source", "Source / medium / campaign"), ("clicks", "Clicks"), ("installs", "Installs"), ("events", "Events"), ("revenue", "Payments"),
    ]

    private static func campaignTable(_ campaigns: [Campaign], base: String, range: HTML, sort: String, costCurrency: String) -> HTML {
        let withCost = campaigns.contains { $0.cost != nil }
        var head = campaignColumns.map { column -> HTML in
            let numeric: HTML = column.key == "source" ? #" colspan="3""# : #" class="n""#
            let label = column.key == sort ? "\(column.label) ▾" : column.label
            return #"<th\#(numeric)><a href="\#(base)?\#(range)&amp;csort=\#(column.key)">\#(label)</a></th>"#
        }
        if withCost { head += [#"<th class="n">Spend</th>"#, #"<th class="n hide-narrow">CPI</th>"#, #"<th class="n">ROAS D7</th>"#] }
        let rows = campaigns.prefix(50).map { group -> HTML in
            var costCells: HTML = ""
            if withCost {
                let cost = group.cost
                let spend = cost.flatMap { $0.hasCost ? MoneyAmount.text($0.spend, currency: costCurrency) : nil } ?? "–"
                let cpi = cost?.cpi.map { MoneyAmount.text($0, currency: costCurrency) } ?? "–"
                let roas = cost?.roas(7).map { String(format: "%.1f %%", $0 * 100) } ?? "–"
                costCells = #"<td class="n">\#(spend)</td><td class="n hide-narrow">\#(cpi)</td><td class="n">\#(roas)</td>"#
            }
            return """
                <tr><td>\(group.source.isEmpty ? "–" : group.source)</td><td>\(group.medium.isEmpty ? "–" : group.medium)</td>\
                <td>\(group.campaign.isEmpty ? "–" : group.campaign)</td>\
                <td class="n">\(group.counts.clicks)</td><td class="n">\(group.counts.attributedInstalls)</td><td class="n">\(group.counts.events)</td>\
                <td class="n">\(money(group.counts.paymentRevenue))</td>\(costCells)</tr>
                """
        }
        let body: HTML = rows.isEmpty ? #"<tr><td colspan="7" class="muted">No links yet.</td></tr>"# : HTML(joining: rows)
        return "<table><thead><tr>\(head)</tr></thead><tbody>\(body)</tbody></table>"
    }

    private static func campaignCSV(_ campaigns: [Campaign], project: Project, range: String) -> HTTPResponse {
        var text = "utm_source,utm_medium,utm_campaign,clicks,bot_clicks,installs,events,payments\r\n"
        for group in campaigns {
            let payments = group.counts.paymentRevenue.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: "; ")
            text +=
                [
                    group.source, group.medium, group.campaign, "\(group.counts.clicks)", "\(group.counts.botClicks)",
                    "\(group.counts.attributedInstalls)", "\(group.counts.events)", payments,
                ].map(csvField).joined(separator: ",") + "\r\n"
        }
        return csvResponse(text, filename: "campaigns-\(project.id)-\(range).csv")
    }

    private static func csv(_ links: [ProjectStats.LinkCounts], project: Project, range: String) -> HTTPResponse {
        var text = "short_code,utm_source,utm_medium,utm_campaign,clicks,bot_clicks,installs,events,payments\r\n"
        for link in links {
            let payments = link.counts.paymentRevenue.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: "; ")
            text +=
                [
                    link.shortCode, link.utmSource ?? "", link.utmMedium ?? "", link.utmCampaign ?? "", "\(link.counts.clicks)",
                    "\(link.counts.botClicks)", "\(link.counts.attributedInstalls)",
                    "\(link.counts.events)", payments,
                ].map(csvField).joined(separator: ",") + "\r\n"
        }
        return csvResponse(text, filename: "links-\(project.id)-\(range).csv")
    }

    static func csvResponse(_ text: String, filename: String) -> HTTPResponse {
        HTTPResponse(
            status: .ok,
            headers: [
                "Content-Type": "text/csv; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                "Content-Disposition": #"attachment; filename="\#(filename)""#,
            ], body: Array(text.utf8))
    }

    /// Attributed installs by confidence band (deterministic matches are 1.0, so "high").
    private static func confidenceRows(_ bands: [String: Int]) -> HTML {
        HTML(
            joining: [("high", "Confidence ≥ 0.80"), ("medium", "Confidence 0.60–0.79"), ("low", "Confidence < 0.60")].map { key, label -> HTML in
                #"<tr><th>\#(label)</th><td class="n">\#(bands[key] ?? 0)</td></tr>"#
            })
    }

    /// Captured payments and event values apart, per currency (never added across currencies).
    private static func revenueTable(_ totals: ProjectStats.Counts) -> HTML {
        let currencies = Set(totals.paymentRevenue.keys).union(totals.eventRevenue.keys).sorted()
        guard !currencies.isEmpty else { return #"<p class="muted">No revenue in this period.</p>"# }
        let rows = currencies.map { currency -> HTML in
            """
            <tr><td>\(currency)</td><td class="n">\(amount(totals.paymentRevenue[currency] ?? 0, currency))</td>\
            <td class="n">\(amount(totals.eventRevenue[currency] ?? 0, currency))</td></tr>
            """
        }
        return
            #"<table><thead><tr><th>Currency</th><th class="n">Payments</th><th class="n">Event values</th></tr></thead><tbody>\#(rows)</tbody></table>"#
    }

    /// Installs Apple Ads attributed, by campaign, ad group and keyword (names when the project has
    /// Campaign Management API credentials); Apple's developer-mode answers marked as tests.
    private static func appleAdsTable(_ rows: [ProjectStats.AppleAdsCounts]) -> HTML {
        guard !rows.isEmpty else { return "" }
        func named(_ name: String?, _ id: String?) -> String {
            name.map { id.map { id in "\(name!) (\(id))" } ?? $0 } ?? id ?? "–"
        }
        let body = rows.map { row -> HTML in
            let test: HTML = row.test ? #" <span class="muted">(test)</span>"# : ""
            return """
                <tr><td>\(named(row.campaignName, row.campaignID))\(test)</td>\
                <td>\(named(row.adGroupName, row.adGroupID))</td><td>\(named(row.keyword, row.keywordID))</td>\
                <td class="n">\(row.counts.installs)</td><td class="n">\(row.counts.events)</td><td class="n">\(money(row.counts.paymentRevenue))</td></tr>
                """
        }
        return """
            <h2>Apple Ads</h2><table><thead><tr><th>Campaign</th><th>Ad group</th><th>Keyword</th><th class="n">Installs</th>\
            <th class="n">Events</th><th class="n">Payments</th></tr></thead><tbody>\(body)</tbody></table>
            """
    }

    /// The period's installs by SKAN conversion value, per postback window.
    private static func skanTable(_ values: [Int: [String: Int]]) -> HTML {
        guard !values.isEmpty else { return #"<p class="muted">No SKAN conversion values for this period's installs.</p>"# }
        func order(_ value: String) -> Int { Int(value) ?? (["low": 100, "medium": 101, "high": 102][value] ?? 200) }
        let rows = values.sorted { $0.key < $1.key }.flatMap { window, counts in
            counts.sorted { order($0.key) < order($1.key) }.map { value, installs -> HTML in
                #"<tr><td>Window \#(window)</td><td>\#(value)</td><td class="n">\#(installs)</td></tr>"#
            }
        }
        return #"<table><thead><tr><th>Window</th><th>Value</th><th class="n">Installs</th></tr></thead><tbody>\#(rows)</tbody></table>"#
    }

    /// RFC 4180 quoting; a value a spreadsheet could read as a formula is prefixed with `'`, so it
    /// never runs a link's code: one whose first character that shows (past spaces, control and
    /// format characters, and combining marks, which spreadsheets skip or fold into the sign) is
    /// `=`, `+`, `-`, `@` or a full-width form of one, or that starts with a tab or carriage return.
    static func csvField(_ value: String) -> String {
        var value = value
        if readsAsFormula(value) { value = "'" + value }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func readsAsFormula(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first else { return false }
        if first == "\t" || first == "\r" { return true }
        let shown = value.unicodeScalars.first { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .nonspacingMark, .enclosingMark, .spacingMark, .spaceSeparator, .lineSeparator, .paragraphSeparator: false
            default: true
            }
        }
        return shown.map { "=+-@\u{FF1D}\u{FF0B}\u{FF0D}\u{FF20}".unicodeScalars.contains($0) } ?? false
    }

    /// "+12% on the 7 days before" style text for a card; "no earlier data" when the period before had none.
    static func change(_ now: Int, _ before: Int) -> String { change(Double(now), Double(before)) }

    static func change(_ now: Double, _ before: Double) -> String {
        guard before > 0 else { return now > 0 ? "new in this period" : "none before either" }
        let percent = ((now - before) * 100 / before).rounded()
        return percent == 0 ? "as in the period before" : "\(percent > 0 ? "+" : "−")\(Int(abs(percent)))% on the period before"
    }

    static func share(_ counts: ProjectStats.Counts) -> String {
        guard counts.installs > 0 else { return "–" }
        return "\(Int((Double(counts.attributedInstalls) * 100 / Double(counts.installs)).rounded())) %"
    }

    static func money(_ amounts: [String: Double]) -> String {
        guard !amounts.isEmpty else { return "0" }
        return amounts.sorted { $0.key < $1.key }.map { MoneyAmount.text($0.value, currency: $0.key) }.joined(separator: ", ")
    }

    /// The amount alone, in the currency's decimals.
    static func amount(_ value: Double, _ currency: String) -> String {
        String(MoneyAmount.text(value, currency: currency).dropFirst(currency.count + 1))
    }
}

/// The project a dashboard path names, when the viewer may read it (404 otherwise, so a viewer of
/// one project cannot tell which other ids exist).
enum DashboardProjects {
    static func readable(_ request: HTTPRequest, _ viewer: DashboardViewer, _ services: Services) throws -> Project {
        let id = try request.parameter("id")
        guard viewer.canRead(projectID: id), let project = try services.app.projects.find(id: id) else {
            throw AppError.notFound("no project \(id)")
        }
        return project
    }
}
