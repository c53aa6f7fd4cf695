import App
import Attribution
import HTTP
import JSON
import StoreContracts

/// What Apple measured for the project's iOS app (its SKAdNetwork and AdAttributionKit postback
/// copies) beside the installs we attributed in the same period, the newest copies, and the
/// Info.plist lines that send the copies here.
enum SKANPage {
    static func show(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            let calendar = LocalCalendar(identifier: project.settings.timeZone) ?? .utc
            let range: DashboardRange
            do {
                range = try DashboardRange.resolve(
                    request.queryItems.map { ($0.name, $0.value) }, calendar: calendar, now: services.now(for: project))
            } catch let problem as DashboardRange.Problem {
                return DashboardPage.message(
                    status: .unprocessableContent, title: "Unknown range", text: problem.message, prefix: auth.prefix, viewer: viewer)
            }
            let ours = try services.app.reports.stats(project: project, since: range.since, until: range.until).totals
            let report = try services.app.applePostbacks.report(project: project, since: range.since, until: range.until, ours: ours)
            let newest = try services.app.applePostbacks.list(project: project, since: range.since, until: range.until, before: nil, limit: 25)
            let base = "\(auth.prefix)/projects/\(project.id)"
            let rangeLinks = DashboardRange.presets.map { entry -> HTML in
                #"<a href="\#(base)/skan?range=\#(entry.key)"\#(if: entry.key == range.key, #" aria-current="page""#)>\#(entry.label)</a>"#
            }
            let body: HTML = """
                <h1>SKAdNetwork and AdAttributionKit</h1><div class="ranges">\(rangeLinks)</div>\
                <div class="cards">\(card("Apple's postbacks", "\(report.postbacks)", "\(report.redownloads) redownloads"))\
                \(card("Our installs", "\(report.ourInstalls)", "\(report.ourAttributedInstalls) attributed by us"))</div>\
                \(report.rows.isEmpty ? emptyState(project, services: services) : table(report))\
                \(if: !newest.isEmpty, latest(newest))\(setUp(project, services: services))
                """
            return DashboardPage.render(
                title: "SKAN · \(project.name)", prefix: auth.prefix, viewer: viewer, projectNav: (project.id, project.name, "SKAN"), body: body)
        }
    }

    static func card(_ label: String, _ value: String, _ note: String) -> HTML {
        #"<div class="card"><small>\#(label)</small><b>\#(value)</b><small>\#(note)</small></div>"#
    }

    static func table(_ report: SKANReport) -> HTML {
        let currency = report.currency ?? ""
        let rows = report.rows.map { row -> HTML in
            let values =
                row.fineValues.keys.sorted().map { "\($0)×\(row.fineValues[$0]!)" }
                + ["high", "medium", "low"].compactMap { name in row.coarseValues[name].map { "\(name)×\($0)" } }
                + (row.withoutValue > 0 ? ["none×\(row.withoutValue)"] : [])
            let events = row.events.keys.sorted().map { "\($0) \(row.events[$0]!)" }.joined(separator: ", ")
            let revenue =
                row.withoutRevenue == row.postbacks ? "–" : "≥ \(amount(row.revenueAtLeast))" + (row.revenueBelow.map { ", < \(amount($0))" } ?? "")
            return """
                <tr><td>\(row.framework == .skadnetwork ? "SKAN" : "AAK")</td><td>\(row.adNetworkID)</td>\
                <td>\(row.source)</td><td>\(window(row.sequenceIndex))</td><td class="n">\(row.postbacks)</td>\
                <td class="n">\(row.redownloads)</td><td class="hide-narrow">\(values.joined(separator: " "))</td>\
                <td>\(events.isEmpty ? "–" : events)</td><td class="n">\(revenue)</td></tr>
                """
        }
        return """
            <h2>By network, source and window</h2><table><thead><tr><th>Framework</th><th>Ad network</th><th>Source</th><th>Window</th>\
            <th class="n">Postbacks</th><th class="n">Redownloads</th><th class="hide-narrow">Values</th><th>Events (decoded)</th>\
            <th class="n">Revenue \(currency)</th></tr></thead><tbody>\(rows)</tbody></table>\
            <p class="muted">Values and events are decoded through the project's SKAN schema; revenue is the range the values stand for.</p>
            """
    }

    static func latest(_ postbacks: [StoredApplePostback]) -> HTML {
        let rows = postbacks.map { stored -> HTML in
            let postback = stored.postback
            let value = postback.fineValue.map(String.init) ?? postback.coarseValue?.rawValue ?? "–"
            return """
                <tr><td>\(stored.receivedAt.iso8601)</td><td>\(postback.adNetworkID)</td><td>\(postback.source)</td>\
                <td>\(window(postback.sequenceIndex))</td><td>\(postback.conversionType)</td><td>\(value)</td>\
                <td>\(postback.isDevelopment ? "development" : "")</td></tr>
                """
        }
        return """
            <h2>Newest postbacks</h2><table><thead><tr><th>Received</th><th>Ad network</th><th>Source</th><th>Window</th><th>Conversion</th>\
            <th>Value</th><th></th></tr></thead><tbody>\(rows)</tbody></table>
            """
    }

    static func emptyState(_ project: Project, services: Services) -> HTML {
        project.settings.appStoreID == nil
            ? #"<p class="muted">No postbacks yet. Set the app's App Store URL (or id) in Settings so that Apple's copies find this project, then add the lines below to the app.</p>"#
            : #"<p class="muted">No postbacks in this period. Apple sends its copies 24 to 48 hours (or more) after each conversion window closes.</p>"#
    }

    /// The Info.plist lines: Apple posts to the registrable domain of the value.
    static func setUp(_ project: Project, services: Services) -> HTML {
        // A project domain, else the server's public_url: never a placeholder a team could paste.
        let domain =
            ((try? services.app.domains.list(projectID: project.id).first?.domain) ?? nil)
            ?? services.publicURL.flatMap { RequestAuthority.authority(ofTarget: $0) }.flatMap { RequestAuthority.hostName(of: $0) }
        let appID = project.settings.appStoreID.map { "App Store id \($0)" } ?? "no App Store id yet (set the App Store URL in Settings)"
        guard let domain, domain.contains("."), !domain.hasPrefix("[") else {
            return """
                <h2>Send Apple's copies here</h2><p>This project: \(appID).</p>\
                <p>Apple sends its postback copies to a domain of yours over HTTPS: add one to the project in Settings (or set the \
                server's <code>public_url</code>), and the Info.plist lines to add appear here.</p>
                """
        }
        let endpoint = "https://\(registrable(domain))"
        return """
            <h2>Send Apple's copies here</h2><p>This project: \(appID). Add to the app's Info.plist:</p>\
            <pre>&lt;key&gt;NSAdvertisingAttributionReportEndpoint&lt;/key&gt;
            &lt;string&gt;\(endpoint)&lt;/string&gt;
            &lt;key&gt;AttributionCopyEndpoint&lt;/key&gt;
            &lt;string&gt;\(endpoint)&lt;/string&gt;</pre>\
            <p class="muted">Apple posts to the registrable domain (\(endpoint)/.well-known/skadnetwork/report-attribution/ \
            and …/appattribution/report-attribution/), which must reach this server over HTTPS.</p>
            """
    }

    /// `links.shop.example.com` → `example.com`; names under a two-part public suffix such as
    /// `co.uk` keep three labels. A heuristic for the hint only (no public suffix list).
    static func registrable(_ domain: String) -> String {
        let labels = domain.split(separator: ".")
        guard labels.count > 2 else { return domain }
        let twoPartSuffix = labels[labels.count - 2].count <= 3 && labels[labels.count - 1].count == 2
        return labels.suffix(twoPartSuffix ? 3 : 2).joined(separator: ".")
    }

    static func window(_ index: Int) -> String { ["days 0–2", "days 3–7", "days 8–35"][min(max(index, 0), 2)] }

    static func amount(_ value: Double) -> String {
        value.exactInteger.map(String.init) ?? ((value * 100).rounded() / 100).decimalText
    }
}
