import App
import Attribution
import Foundation
import HTTP

/// Return on ad spend over a period, by campaign, ad group or network (docs/cost.md, "ROAS"): spend
/// beside installs, CPI and what the installs paid by day 0, 7 and 30, in the reporting currency,
/// with a totals row and the period before's. `ROASModel` decides what shows, this renders it.
enum ROASPage {
    static func show(_ services: Services) -> PeriodPage {
        let auth = DashboardAuth(services: services)
        return { _, viewer, period in
            let model = try ROASModel.load(period, services: services)
            let base = "\(auth.prefix)/projects/\(model.project.id)"
            return DashboardPage.render(
                title: "ROAS · \(model.project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (model.project.id, model.project.name, "ROAS"), body: render(model, base: base))
        }
    }

    static func render(_ model: ROASModel, base: String) -> HTML {
        let currency = model.currency
        let range = model.period.range.query
        let byCampaign = model.grouping != .network
        let byAdGroup = model.grouping == .adGroup
        let by: HTML = model.grouping == .campaign ? "" : "&amp;by=\(model.grouping.rawValue)"
        func money(_ amount: Double?) -> HTML { "\(amount.map { MoneyAmount.text($0, currency: currency) } ?? "–")" }
        func ratio(_ value: Double?) -> HTML { "\(value.map { String(format: "%.1f %%", $0 * 100) } ?? "–")" }
        func cells(_ row: ROASReport.Row) -> HTML {
            """
            <td class="n">\(row.hasCost ? money(row.spend) : "–")</td><td class="n">\(row.installs)</td><td class="n">\(money(row.cpi))</td>\
            <td class="n hide-narrow">\(row.payingInstalls)</td><td class="n hide-narrow">\(money(row.revenue[7] ?? 0))</td>\
            <td class="n hide-narrow">\(money(row.revenue[30] ?? 0))</td><td class="n hide-narrow">\(money(row.refunds))</td>\
            <td class="n hide-narrow">\(ratio(row.roas(0)))</td>\
            <td class="n">\(ratio(row.roas(7)))</td><td class="n hide-narrow">\(ratio(row.roas(30)))</td>
            """
        }
        let narrow: Set<String> = ["paying_users", "revenue_d7", "revenue_d30", "refunds", "roas_d0", "roas_d30"]
        let head = ROASModel.sortable.map { column -> HTML in
            let label = column.key == model.sort ? "\(column.label) ▾" : column.label
            let hide: HTML = narrow.contains(column.key) ? " hide-narrow" : ""
            return #"<th class="n\#(hide)"><a href="\#(base)/roas?\#(range)\#(by)&amp;sort=\#(column.key)">\#(label)</a></th>"#
        }
        let rows = model.report.rows.map { row -> HTML in
            let network: HTML = row.network.isEmpty ? #"<span class="muted">no UTM source</span>"# : "\(row.network)"
            var campaign: HTML = ""
            if byCampaign {
                let name = row.campaignName.isEmpty ? row.campaignID : row.campaignName
                let id: HTML = !row.campaignID.isEmpty && row.campaignID != name ? #" <span class="muted">\#(row.campaignID)</span>"# : ""
                let joined: HTML =
                    !row.hasInstalls ? #" <span class="badge">cost only</span>"# : !row.hasCost ? #" <span class="badge">no cost</span>"# : ""
                campaign = "<td>\(name.isEmpty ? "–" : name)\(id)\(joined)</td>"
            }
            if byAdGroup {
                let name = row.adGroupName.isEmpty ? row.adGroupID : row.adGroupName
                let id: HTML = !row.adGroupID.isEmpty && row.adGroupID != name ? #" <span class="muted">\#(row.adGroupID)</span>"# : ""
                campaign += name.isEmpty ? #"<td class="muted">–</td>"# : "<td>\(name)\(id)</td>"
            }
            return "<tr><td>\(network)</td>\(campaign)\(cells(row))</tr>"
        }
        let span: HTML = byAdGroup ? #" colspan="3""# : byCampaign ? #" colspan="2""# : ""
        let none: HTML = #"<tr><td colspan="11" class="muted">No cost and no credited installs in this period.</td></tr>"#
        let totals: HTML = "<tr><th\(span)>Total</th>\(cells(model.report.totals))</tr>"
        let before: HTML = #"<tr class="muted"><td\#(span)>Period before</td>\#(cells(model.before))</tr>"#
        var notes: [HTML] = []
        if !model.report.staleRateDays.isEmpty {
            notes.append("Converted at an earlier day's rates (none published for them): \(model.report.staleRateDays.joined(separator: ", ")).")
        }
        for (code, amount) in model.report.unconverted.sorted(by: { $0.key < $1.key }) {
            notes.append("No rate converts \(code) to \(currency) yet: \(MoneyAmount.text(amount, currency: code)) is left out.")
        }
        let groupings: [(ROASReport.Grouping, String, HTML)] = [
            (.campaign, "by campaign", ""), (.adGroup, "by ad group", "&amp;by=adgroup"), (.network, "by network", "&amp;by=network"),
        ]
        let switcher = HTML(
            joining: groupings.map { grouping, label, query -> HTML in
                grouping == model.grouping ? "\(label)" : #"<a href="\#(base)/roas?\#(range)\#(query)">\#(label)</a>"#
            }, separator: " · ")
        let carry: [(name: String, value: String)] = model.grouping == .campaign ? [] : [("by", model.grouping.rawValue)]
        return """
            <h1>Return on ad spend</h1>\
            <div class="ranges">\(model.period.range.picker(base: "\(base)/roas", calendar: model.period.calendar, carry: carry))</div>\
            <p class="muted">\(model.since) to \(model.until), in \(currency) at each day's reference rates. Revenue is what the period's \
            installs paid by the end of day 0, 7 and 30 after install (payments and events with revenue). Shown \(switcher) · \
            <a href="\(base)/cost">Cost</a></p>\
            <table><thead><tr><th>Network</th>\(if: byCampaign, "<th>Campaign</th>")\(if: byAdGroup, "<th>Ad group</th>")\(head)</tr></thead>\
            <tbody>\(rows, otherwise: none)</tbody><tfoot>\(totals)\(before)</tfoot></table>\
            \(HTML(joining: notes.map { note -> HTML in #"<p class="muted">\#(note)</p>"# }))
            """
    }
}
