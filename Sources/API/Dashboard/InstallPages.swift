import App
import Attribution
import HTTP
import StoreContracts

/// Recent installs (newest first, 50 a page, paged by time) and one install's page: how it was
/// matched, its click, events and payments.
enum InstallPages {
    static let pageSize = 50

    static func list(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            let before = request.queryValue("before").flatMap(Int64.init).map(Timestamp.init(milliseconds:))
            // Test traffic (a client's test mode) is listed apart, behind the switch.
            let test = request.queryValue("traffic") == "test"
            let installs = try services.app.reports.browse.recentInstalls(projectID: project.id, test: test, before: before, limit: pageSize + 1)
            let base = "\(auth.prefix)/projects/\(project.id)"
            let rows = installs.prefix(pageSize).map { install -> HTML in
                """
                <tr><td><a href="\(base)/installs/\(install.id)">\(install.createdAt.iso8601)</a></td>\
                <td>\(install.platform ?? "–")</td><td>\(source(install))</td><td>\(install.matchType)</td>\
                <td class="n">\(confidence(install))</td><td class="hide-narrow">\(install.matchedFactors.joined(separator: ", "))</td>\
                <td>\(link(install, base: base))</td></tr>
                """
            }
            let none: HTML =
                test
                ? #"<tr><td colspan="7" class="muted">No test installs. A WarpLink <code>wl_test_</code> key or Linkrunner's <code>debug</code> sends them.</td></tr>"#
                : #"<tr><td colspan="7" class="muted">No installs yet: <a href="\#(base)/connect">connect your app</a>, then launch it once.</td></tr>"#
            let traffic: HTML = test ? "&amp;traffic=test" : ""
            let older: HTML =
                installs.count > pageSize
                ? #"<p><a href="\#(base)/installs?before=\#(installs[pageSize - 1].createdAt.milliseconds)\#(traffic)">Older</a></p>"# : ""
            let switcher: HTML =
                test
                ? #"<p class="switch"><a href="\#(base)/installs">Live</a> · <strong>Test</strong> <span class="muted">(not counted in the overview, never sent to webhooks or postbacks)</span></p>"#
                : #"<p class="switch"><strong>Live</strong> · <a href="\#(base)/installs?traffic=test">Test</a></p>"#
            let body: HTML = """
                <h1>Installs</h1>\(switcher)<table><thead><tr><th>Time (UTC)</th><th>Platform</th><th>Source</th><th>Match</th>\
                <th class="n">Confidence</th><th class="hide-narrow">Matched on</th><th>Link</th></tr></thead><tbody>\(rows, otherwise: none)</tbody></table>\(older)
                """
            return DashboardPage.render(
                title: "Installs · \(project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (project.id, project.name, "Installs"), body: body)
        }
    }

    static func show(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            let browse = services.app.reports.browse
            guard let install = try browse.install(id: try request.parameter("installId"), projectID: project.id) else {
                throw AppError.notFound("project \(project.id) has no install \(try request.parameter("installId"))")
            }
            let base = "\(auth.prefix)/projects/\(project.id)"
            let click = try install.clickID.flatMap { try browse.click(clickID: $0, projectID: project.id) }
            let events = try browse.events(installID: install.id, limit: 100).map { event -> HTML in
                let money = event.revenue.map { MoneyAmount.text($0, currency: event.currency ?? project.settings.currency) } ?? ""
                return "<tr><td>\(event.receivedAt.iso8601)</td><td>\(event.name)</td><td class=\"n\">\(money)</td></tr>"
            }
            let payments = try browse.payments(installID: install.id).map { payment -> HTML in
                """
                <tr><td>\(payment.createdAt.iso8601)</td><td>\(payment.paymentID)</td>\
                <td class="n">\(MoneyAmount.text(payment.amount, currency: payment.currency))</td><td>\(payment.removedAt.map { "removed \($0.iso8601)" } ?? "")</td></tr>
                """
            }
            let skan = try browse.skanWindows(installID: install.id).map { window -> HTML in
                """
                <tr><td>\(window.window)</td><td class="n">\(window.fine.map(String.init) ?? "–")</td><td>\(window.coarse ?? "–")</td>\
                <td>\(window.locked ? "locked" : "open")</td><td>\(window.updatedAt.iso8601)</td></tr>
                """
            }
            // Deliveries carry receivers' answers: admins only, like the webhooks page.
            let deliveries: [HTML]? =
                viewer.canChange(projectID: project.id)
                ? try services.app.webhooks.deliveries(projectID: project.id, installID: install.id, limit: 50).map { job -> HTML in
                    """
                    <tr><td>\(job.message.createdAt.iso8601)</td><td>\(job.message.kind)</td><td>\(job.message.eventType)</td>\
                    <td>\(job.status.rawValue)</td><td class="n">\(job.attempts)</td><td class="n">\(job.lastStatusCode.map(String.init) ?? "–")</td></tr>
                    """
                } : nil
            let explanation = try Self.explanation(
                try browse.explanation(installID: install.id, projectID: project.id),
                annotations: try services.app.reports.annotations(installID: install.id, project: project), base: base)
            let clickRow: HTML =
                click.map { click -> HTML in
                    "\(click.createdAt.iso8601) · \(click.platform ?? "–") · \(click.source)\(if: click.isBot, #" · <span class="bot">bot</span>"#)"
                } ?? "–"
            let deliveryTable: HTML =
                deliveries.map { rows -> HTML in
                    """
                    <h2>Webhook and postback deliveries</h2><table><thead><tr><th>Created</th><th>Kind</th><th>Event</th><th>Status</th>\
                    <th class="n">Attempts</th><th class="n">Last answer</th></tr></thead>\
                    <tbody>\(rows, otherwise: #"<tr><td colspan="6" class="muted">None.</td></tr>"#)</tbody></table>
                    """
                } ?? ""
            let erase: HTML =
                viewer.canChange(projectID: project.id)
                ? """
                <h2>Erase (GDPR)</h2><form class="stack" method="post" action="\(base)/installs/\(install.id)/erase">\
                \(DashboardPage.csrfField(viewer))<p class="muted">Deletes this install for good: its events, payments, SKAN values, \
                its click's identifiers and its webhook and postback deliveries, as the admin API's erase does. It cannot be undone.</p>\
                <label>Type <code>erase</code> to confirm<input name="confirm" autocomplete="off" required pattern="erase"></label>\
                <button class="danger">Erase this install</button></form>
                """ : ""
            let body: HTML = """
                <h1>Install <code>\(install.id)</code>\(if: install.isTest, #" <span class="badge">Test</span>"#)</h1>\
                \(if: install.isTest, #"<p class="muted">Reported in a client's test mode: not counted in the overview, never sent to webhooks or postbacks.</p>"#)<table><tbody>\
                <tr><th>Installed</th><td>\(install.createdAt.iso8601)</td></tr>\
                <tr><th>SDK family</th><td>\(install.api)</td></tr>\
                <tr><th>Platform</th><td>\(install.platform ?? "–")</td></tr>\
                <tr><th>Country</th><td>\(install.country ?? "–")</td></tr>\
                <tr><th>Source</th><td>\(source(install))</td></tr>\
                <tr><th>Match</th><td>\(install.matchType), confidence \(confidence(install))</td></tr>\
                <tr><th>Matched on</th><td>\(install.matchedFactors.joined(separator: ", "))</td></tr>\
                <tr><th>Link</th><td>\(link(install, base: base))</td></tr>\
                <tr><th>Click</th><td>\(clickRow)</td></tr>\
                <tr><th>User</th><td>\(install.userID ?? "–")</td></tr></tbody></table>\
                \(explanation)\
                <h2>Events (latest 100)</h2><table><thead><tr><th>Received</th><th>Name</th><th class="n">Value</th></tr></thead>\
                <tbody>\(events, otherwise: #"<tr><td colspan="3" class="muted">None.</td></tr>"#)</tbody></table>\
                <h2>Payments</h2><table><thead><tr><th>Captured</th><th>Payment id</th><th class="n">Amount</th><th></th></tr></thead>\
                <tbody>\(payments, otherwise: #"<tr><td colspan="4" class="muted">None.</td></tr>"#)</tbody></table>\
                <h2>SKAN conversion values</h2><table><thead><tr><th>Window</th><th class="n">Fine</th><th>Coarse</th><th>State</th><th>Updated</th></tr></thead>\
                <tbody>\(skan, otherwise: #"<tr><td colspan="5" class="muted">None.</td></tr>"#)</tbody></table>\
                \(deliveryTable)\
                \(erase)
                """
            return DashboardPage.render(
                title: "Install · \(project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (project.id, project.name, "Installs"), body: body)
        }
    }

    /// `POST …/installs/{installId}/erase`: the GDPR erase, after the typed confirmation.
    static func erase(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            let installID = try request.parameter("installId")
            guard form.text("confirm") == "erase" else {
                return DashboardPage.message(
                    status: .unprocessableContent, title: "Not erased",
                    text: "Type erase in the confirmation field to erase the install.", prefix: auth.prefix, viewer: viewer)
            }
            try services.app.reports.eraseInstall(installID, project: project)
            return DashboardPage.message(
                status: .ok, title: "Install erased",
                text: "Install \(installID) and everything stored about it are gone.", prefix: auth.prefix, viewer: viewer)
        }
    }

    /// "How it was matched": the deciding tier and the candidates, from the explanation recorded
    /// with the install.
    static func explanation(_ text: String?, annotations: ExplanationAnnotations, base: String) throws -> HTML {
        guard let text, case .object(let recorded) = try JSONValueParser.parse(Array(text.utf8)) else {
            return #"<h2>How it was matched</h2><p class="muted">Not recorded: this install was stored before 0.2.0.</p>"#
        }
        let fields = annotations.applied(to: recorded)
        let decided = fields["decided_by"]?.stringValue ?? "none"
        let minimum = fields["min_confidence"]?.numberValue.map { String($0) } ?? "–"
        let considered = fields["candidates_considered"]?.numberValue.map { String(Int($0)) } ?? "0"
        var rows: [HTML] = []
        if case .array(let candidates)? = fields["candidates"] {
            for case .object(let candidate) in candidates {
                let factors: String
                if case .array(let list)? = candidate["factors"] {
                    factors = list.compactMap(\.stringValue).joined(separator: ", ")
                } else {
                    factors = ""
                }
                rows.append(
                    """
                    <tr><td><code>\(candidate["click_id"]?.stringValue ?? "")</code></td>\
                    <td>\(candidate["clicked_at"]?.stringValue ?? "")</td><td>\(candidate["found_by"]?.stringValue ?? "")</td>\
                    <td class="n">\(candidate["score"]?.numberValue.map { String($0) } ?? "–")</td><td>\(factors)</td>\
                    <td>\(candidate["outcome"]?.stringValue ?? "")</td></tr>
                    """)
            }
        }
        for claim in annotations.claims {
            rows.append(
                """
                <tr><td>\(claim.source == "apple_ads" ? "Apple Ads claim" : claim.source)</td><td></td><td>claim</td>\
                <td class="n">\(claim.won ? "1.0" : "–")</td><td>\(claim.campaignID.map { "campaign \($0)" } ?? "")</td>\
                <td>\(ExplanationAnnotations.outcome(of: claim))</td></tr>
                """)
        }
        for click in annotations.claimedEarlier {
            rows.append(
                """
                <tr><td><code>\(click.clickID)</code></td><td>\(click.clickedAt.iso8601)</td><td>network</td>\
                <td class="n">–</td><td></td><td>claimed by install <code>\(click.installID)</code> before this one came</td></tr>
                """)
        }
        return """
            <h2>How it was matched</h2><p>Decided by <b>\(decided)</b>; \(considered) candidate clicks considered; \
            minimum confidence \(minimum).</p><table><thead><tr><th>Click</th><th>Clicked</th><th>Found by</th><th class="n">Score</th>\
            <th class="hide-narrow">Factors</th><th>Outcome</th></tr></thead>\
            <tbody>\(rows, otherwise: #"<tr><td colspan="6" class="muted">No click was a candidate: an organic install.</td></tr>"#)</tbody></table>
            """
    }

    /// The install's link, named by its short code.
    static func link(_ install: InstallSummary, base: String) -> HTML {
        install.shortCode.map { #"<a href="\#(base)/links/\#(install.linkID ?? "")">\#($0)</a>"# } ?? "–"
    }

    static func source(_ install: InstallSummary) -> String {
        guard install.attributed else { return "organic" }
        return install.matchedFactors == [AppleAdsAttribution.factor] ? "Apple Ads" : "link"
    }

    static func confidence(_ install: InstallSummary) -> String {
        install.attributed ? String(Int((install.confidence * 100).rounded())) + " %" : "–"
    }
}

private extension JSONValue {
    var stringValue: String? { if case .string(let text) = self { text } else { nil } }
    var numberValue: Double? { if case .number(let value) = self { value } else { nil } }
}
