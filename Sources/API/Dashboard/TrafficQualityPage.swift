import App
import Attribution
import Foundation
import HTTP

/// The installs the project's fraud rules rejected or flagged over a period, by reason, source and
/// campaign, with their rates (docs/traffic-quality.md), and which address lists the server has.
enum TrafficQualityPage {
    static func show(_ services: Services) -> PeriodPage {
        let auth = DashboardAuth(services: services)
        return { _, viewer, period in
            let project = period.project
            let report = try services.app.reports.trafficQuality(project: project, since: period.range.since, until: period.range.until)
            let base = "\(auth.prefix)/projects/\(project.id)"
            return DashboardPage.render(
                title: "Traffic quality · \(project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (project.id, project.name, "Traffic quality"),
                body: render(report, period: period, base: base, relayList: services.addressLists.hasRelayList))
        }
    }

    /// What each reason means, in a line.
    static let meanings: [String: String] = [
        RejectionReason.clickInjection.rawValue: "clicked after Google Play began the install",
        RejectionReason.referrerTimeMismatch.rawValue: "Play saw its tap at another time than the click it names",
        RejectionReason.datacenterClick.rawValue: "clicked from a hosting address",
        RejectionReason.clickFlooding.rawValue: "one of a burst of clicks from one address",
        QualityFlag.shortClickToInstall.rawValue: "installed sooner after the click than a download takes",
    ]

    static func render(_ report: TrafficQualityReport, period: DashboardPeriodPage, base: String, relayList: Bool) -> HTML {
        func percent(_ count: Int) -> String { String(format: "%.1f %%", report.rate(count) * 100) }
        func card(_ label: String, _ value: String, _ note: String) -> HTML {
            #"<div class="card"><small>\#(label)</small><b>\#(value)</b><small>\#(note)</small></div>"#
        }
        let cards: HTML = """
            \(card("Installs", "\(report.installs)", "new, in this period"))\
            \(card("Rejected", "\(report.rejected)", "\(percent(report.rejected)) of installs"))\
            \(card("Flagged", "\(report.flagged)", "\(percent(report.flagged)) of installs"))
            """
        let reasons = report.byReason.map { count -> HTML in
            """
            <tr><td><code>\(count.key)</code> <span class="muted hide-narrow">\(meanings[count.key] ?? "")</span></td>\
            <td class="n">\(count.rejected)</td><td class="n">\(count.flagged)</td>\
            <td class="n">\(percent(count.rejected + count.flagged))</td></tr>
            """
        }
        let campaigns = report.byCampaign.map { count -> HTML in
            """
            <tr><td>\(count.source ?? "(none)")</td><td>\(count.key)</td><td class="n">\(count.rejected)</td>\
            <td class="n">\(count.flagged)</td><td class="n">\(percent(count.rejected + count.flagged))</td></tr>
            """
        }
        let none: HTML = #"<tr><td colspan="5" class="muted">No install was rejected or flagged in this period.</td></tr>"#
        let lists: HTML =
            relayList
            ? "The server has Apple's Private Relay list: relayed taps are matched by region and device signals, never by address."
            : "No Private Relay list is loaded (private_relay_list): relayed taps are matched by address, as any other."
        return """
            <h1>Traffic quality</h1>\
            <div class="ranges">\(period.range.picker(base: "\(base)/traffic-quality", calendar: period.calendar, carry: []))</div>\
            <div class="cards">\(cards)</div>\
            <h2>By reason</h2><table class="reasons"><thead><tr><th>Reason</th><th class="n">Rejected</th><th class="n">Flagged</th>\
            <th class="n">Rate</th></tr></thead><tbody>\(reasons)</tbody></table>\
            <h2>By source and campaign</h2><table class="sources"><thead><tr><th>Source</th><th>Campaign</th>\
            <th class="n">Rejected</th><th class="n">Flagged</th><th class="n">Rate</th></tr></thead>\
            <tbody>\(campaigns, otherwise: none)</tbody></table>\
            <p class="muted">A rejected install's winning click was refused by a fraud rule: the install went to the next candidate or \
            stayed organic, and the refused click sent no postback. A flagged install keeps its attribution. Sources and campaigns are \
            the refused (or flagged) click's. Rates are shares of the period's installs. \(lists)</p>
            """
    }
}
