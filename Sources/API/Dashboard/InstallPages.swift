import App
import Attribution
import HTTP
import StoreContracts

/// Recent installs (newest first, 50 a page, paged by time) and one install's page: how it was
/// matched, its click, events and payments.
enum InstallPages {
    static func list(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            let model = try InstallsModel.load(request, project: project, services: services)
            return DashboardPage.render(
                title: "Installs · \(project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (project.id, project.name, "Installs"), body: render(model, base: "\(auth.prefix)/projects/\(project.id)"))
        }
    }

    static func render(_ model: InstallsModel, base: String) -> HTML {
        let rows = model.installs.map { install -> HTML in
            """
            <tr><td><a href="\(base)/installs/\(install.id)">\(install.createdAt.iso8601)</a></td>\
            <td>\(install.platform ?? "–")</td><td>\(InstallModel.source(install))</td><td>\(install.matchType)</td>\
            <td class="n">\(InstallModel.confidence(install))</td><td class="hide-narrow">\(install.matchedFactors.joined(separator: ", "))</td>\
            <td>\(link(install, base: base))</td></tr>
            """
        }
        let none: HTML =
            model.test
            ? #"<tr><td colspan="7" class="muted">No test installs. A WarpLink <code>wl_test_</code> key or Linkrunner's <code>debug</code> sends them.</td></tr>"#
            : #"<tr><td colspan="7" class="muted">No installs yet: <a href="\#(base)/connect">connect your app</a>, then launch it once.</td></tr>"#
        let traffic: HTML = model.test ? "&amp;traffic=test" : ""
        let older: HTML =
            model.olderBefore.map { #"<p><a href="\#(base)/installs?before=\#($0.milliseconds)\#(traffic)">Older</a></p>"# } ?? ""
        let switcher: HTML =
            model.test
            ? #"<p class="switch"><a href="\#(base)/installs">Live</a> · <strong>Test</strong> <span class="muted">(not counted in the overview, never sent to webhooks or postbacks)</span></p>"#
            : #"<p class="switch"><strong>Live</strong> · <a href="\#(base)/installs?traffic=test">Test</a></p>"#
        return """
            <h1>Installs</h1>\(switcher)<table><thead><tr><th>Time (UTC)</th><th>Platform</th><th>Source</th><th>Match</th>\
            <th class="n">Confidence</th><th class="hide-narrow">Matched on</th><th>Link</th></tr></thead><tbody>\(rows, otherwise: none)</tbody></table>\(older)
            """
    }

    static func show(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            let model = try InstallModel.load(installID: try request.parameter("installId"), viewer: viewer, project: project, services: services)
            return DashboardPage.render(
                title: "Install · \(project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (project.id, project.name, "Installs"), body: render(model, base: "\(auth.prefix)/projects/\(project.id)", viewer: viewer)
            )
        }
    }

    static func render(_ model: InstallModel, base: String, viewer: DashboardViewer) -> HTML {
        let (install, project) = (model.install, model.project)
        let events = model.events.map { event -> HTML in
            let money = event.revenue.map { MoneyAmount.text($0, currency: event.currency ?? project.settings.currency) } ?? ""
            return "<tr><td>\(event.receivedAt.iso8601)</td><td>\(event.name)</td><td class=\"n\">\(money)</td></tr>"
        }
        let payments = model.payments.map { payment -> HTML in
            let verifier = ["app_store": "App Store", "google_play": "Google Play", "revenuecat": "RevenueCat"]
            let state = [payment.verifiedBy.map { "verified by \(verifier[$0] ?? $0)" }, payment.removedAt.map { "removed \($0.iso8601)" }]
                .compactMap { $0 }.joined(separator: ", ")
            return """
                <tr><td>\(payment.createdAt.iso8601)</td><td>\(payment.paymentID)</td>\
                <td class="n">\(MoneyAmount.text(payment.amount, currency: payment.currency))</td><td>\(state)</td></tr>
                """
        }
        let skan = model.skanWindows.map { window -> HTML in
            """
            <tr><td>\(window.window)</td><td class="n">\(window.fine.map(String.init) ?? "–")</td><td>\(window.coarse ?? "–")</td>\
            <td>\(window.locked ? "locked" : "open")</td><td>\(window.updatedAt.iso8601)</td></tr>
            """
        }
        let clickRow: HTML =
            model.click.map { click -> HTML in
                "\(click.createdAt.iso8601) · \(click.platform ?? "–") · \(click.source)\(if: click.isBot, #" · <span class="bot">bot</span>"#)"
            } ?? "–"
        let deliveryTable: HTML =
            model.deliveries.map { jobs -> HTML in
                let rows = jobs.map { job -> HTML in
                    """
                    <tr><td>\(job.message.createdAt.iso8601)</td><td>\(job.message.kind)</td><td>\(job.message.eventType)</td>\
                    <td>\(job.status.rawValue)</td><td class="n">\(job.attempts)</td><td class="n">\(job.lastStatusCode.map(String.init) ?? "–")</td></tr>
                    """
                }
                return """
                    <h2>Webhook and postback deliveries</h2><table><thead><tr><th>Created</th><th>Kind</th><th>Event</th><th>Status</th>\
                    <th class="n">Attempts</th><th class="n">Last answer</th></tr></thead>\
                    <tbody>\(rows, otherwise: #"<tr><td colspan="6" class="muted">None.</td></tr>"#)</tbody></table>
                    """
            } ?? ""
        let erase: HTML =
            model.canErase
            ? """
            <h2>Erase (GDPR)</h2><form class="stack" method="post" action="\(base)/installs/\(install.id)/erase">\
            \(DashboardPage.csrfField(viewer))<p class="muted">Deletes this install for good: its events, payments, SKAN values, \
            its click's identifiers and its webhook and postback deliveries, as the admin API's erase does. It cannot be undone.</p>\
            <label>Type <code>erase</code> to confirm<input name="confirm" autocomplete="off" required pattern="erase"></label>\
            <button class="danger">Erase this install</button></form>
            """ : ""
        return """
            <h1>Install <code>\(install.id)</code>\(if: install.isTest, #" <span class="badge">Test</span>"#)</h1>\
            \(if: install.isTest, #"<p class="muted">Reported in a client's test mode: not counted in the overview, never sent to webhooks or postbacks.</p>"#)<table><tbody>\
            <tr><th>Installed</th><td>\(install.createdAt.iso8601)</td></tr>\
            <tr><th>SDK family</th><td>\(install.api)</td></tr>\
            <tr><th>Platform</th><td>\(install.platform ?? "–")</td></tr>\
            <tr><th>Country</th><td>\(install.country ?? "–")</td></tr>\
            <tr><th>Source</th><td>\(InstallModel.source(install))</td></tr>\
            <tr><th>Match</th><td>\(install.matchType), confidence \(InstallModel.confidence(install))</td></tr>\
            <tr><th>Matched on</th><td>\(install.matchedFactors.joined(separator: ", "))</td></tr>\
            <tr><th>Link</th><td>\(link(install, base: base))</td></tr>\
            <tr><th>Click</th><td>\(clickRow)</td></tr>\
            <tr><th>User</th><td>\(install.userID ?? "–")</td></tr></tbody></table>\
            \(explanation(model.explanation))\
            <h2>Events (latest 100)</h2><table><thead><tr><th>Received</th><th>Name</th><th class="n">Value</th></tr></thead>\
            <tbody>\(events, otherwise: #"<tr><td colspan="3" class="muted">None.</td></tr>"#)</tbody></table>\
            <h2>Payments</h2><table><thead><tr><th>Captured</th><th>Payment id</th><th class="n">Amount</th><th></th></tr></thead>\
            <tbody>\(payments, otherwise: #"<tr><td colspan="4" class="muted">None.</td></tr>"#)</tbody></table>\
            <h2>SKAN conversion values</h2><table><thead><tr><th>Window</th><th class="n">Fine</th><th>Coarse</th><th>State</th><th>Updated</th></tr></thead>\
            <tbody>\(skan, otherwise: #"<tr><td colspan="5" class="muted">None.</td></tr>"#)</tbody></table>\
            \(deliveryTable)\
            \(erase)
            """
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

    /// "How it was matched": the deciding tier and the candidates.
    static func explanation(_ explanation: InstallModel.Explanation?) -> HTML {
        guard let explanation else {
            return #"<h2>How it was matched</h2><p class="muted">Not recorded: this install was stored before 0.2.0.</p>"#
        }
        let rows = explanation.rows.map { row -> HTML in
            """
            <tr><td>\(if: row.clickIsID, "<code>")\(row.click)\(if: row.clickIsID, "</code>")</td><td>\(row.clickedAt)</td><td>\(row.foundBy)</td>\
            <td class="n">\(row.score)</td><td>\(row.factors)</td><td>\(outcome(row))</td></tr>
            """
        }
        return """
            <h2>How it was matched</h2><p>Decided by <b>\(explanation.decidedBy)</b>; \(explanation.candidatesConsidered) candidate clicks considered; \
            minimum confidence \(explanation.minimumConfidence).</p><table><thead><tr><th>Click</th><th>Clicked</th><th>Found by</th><th class="n">Score</th>\
            <th class="hide-narrow">Factors</th><th>Outcome</th></tr></thead>\
            <tbody>\(rows, otherwise: #"<tr><td colspan="6" class="muted">No click was a candidate: an organic install.</td></tr>"#)</tbody></table>
            """
    }

    private static func outcome(_ row: InstallModel.Explanation.Row) -> HTML {
        guard let install = row.claimedBy else { return "\(row.outcome)" }
        return "claimed by install <code>\(install)</code> before this one came"
    }

    /// The install's link, named by its short code.
    static func link(_ install: InstallSummary, base: String) -> HTML {
        install.shortCode.map { #"<a href="\#(base)/links/\#(install.linkID ?? "")">\#($0)</a>"# } ?? "–"
    }
}
