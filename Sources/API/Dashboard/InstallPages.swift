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
            let base = "\(auth.prefix)/projects/\(Escape.html(project.id))"
            var rows = installs.prefix(pageSize).map { install in
                """
                <tr><td><a href="\(base)/installs/\(Escape.html(install.id))">\(install.createdAt.iso8601)</a></td>\
                <td>\(Escape.html(install.platform ?? "–"))</td><td>\(source(install))</td><td>\(install.matchType)</td>\
                <td class="n">\(confidence(install))</td><td class="hide-narrow">\(Escape.html(install.matchedFactors.joined(separator: ", ")))</td>\
                <td>\(install.shortCode.map { #"<a href="\#(base)/links/\#(Escape.html(install.linkID ?? ""))">\#(Escape.html($0))</a>"# } ?? "–")</td></tr>
                """
            }.joined()
            if rows.isEmpty {
                rows =
                    test
                    ? #"<tr><td colspan="7" class="muted">No test installs. A WarpLink <code>wl_test_</code> key or Linkrunner's <code>debug</code> sends them.</td></tr>"#
                    : #"<tr><td colspan="7" class="muted">No installs yet: <a href="\#(base)/connect">connect your app</a>, then launch it once.</td></tr>"#
            }
            let traffic = test ? "&amp;traffic=test" : ""
            let older =
                installs.count > pageSize
                ? #"<p><a href="\#(base)/installs?before=\#(installs[pageSize - 1].createdAt.milliseconds)\#(traffic)">Older</a></p>"# : ""
            let switcher =
                test
                ? #"<p class="switch"><a href="\#(base)/installs">Live</a> · <strong>Test</strong> <span class="muted">(not counted in the overview, never sent to webhooks or postbacks)</span></p>"#
                : #"<p class="switch"><strong>Live</strong> · <a href="\#(base)/installs?traffic=test">Test</a></p>"#
            let body = """
                <h1>Installs</h1>\(switcher)<table><thead><tr><th>Time (UTC)</th><th>Platform</th><th>Source</th><th>Match</th>\
                <th class="n">Confidence</th><th class="hide-narrow">Matched on</th><th>Link</th></tr></thead><tbody>\(rows)</tbody></table>\(older)
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
            let base = "\(auth.prefix)/projects/\(Escape.html(project.id))"
            let click = try install.clickID.flatMap { try browse.click(clickID: $0, projectID: project.id) }
            let events = try browse.events(installID: install.id, limit: 100).map { event in
                let money = event.revenue.map { Escape.html(MoneyAmount.text($0, currency: event.currency ?? project.settings.currency)) } ?? ""
                return "<tr><td>\(event.receivedAt.iso8601)</td><td>\(Escape.html(event.name))</td><td class=\"n\">\(money)</td></tr>"
            }.joined()
            let payments = try browse.payments(installID: install.id).map { payment in
                """
                <tr><td>\(payment.createdAt.iso8601)</td><td>\(Escape.html(payment.paymentID))</td>\
                <td class="n">\(Escape.html(MoneyAmount.text(payment.amount, currency: payment.currency)))</td><td>\(payment.removedAt.map { "removed \($0.iso8601)" } ?? "")</td></tr>
                """
            }.joined()
            let skan = try browse.skanWindows(installID: install.id).map { window in
                """
                <tr><td>\(window.window)</td><td class="n">\(window.fine.map(String.init) ?? "–")</td><td>\(Escape.html(window.coarse ?? "–"))</td>\
                <td>\(window.locked ? "locked" : "open")</td><td>\(window.updatedAt.iso8601)</td></tr>
                """
            }.joined()
            // Deliveries carry receivers' answers: admins only, like the webhooks page.
            let deliveries =
                viewer.canChange(projectID: project.id)
                ? try services.app.webhooks.deliveries(projectID: project.id, installID: install.id, limit: 50).map { job in
                    """
                    <tr><td>\(job.message.createdAt.iso8601)</td><td>\(Escape.html(job.message.kind))</td><td>\(Escape.html(job.message.eventType))</td>\
                    <td>\(job.status.rawValue)</td><td class="n">\(job.attempts)</td><td class="n">\(job.lastStatusCode.map(String.init) ?? "–")</td></tr>
                    """
                }.joined() : nil
            let explanation = try Self.explanation(
                try browse.explanation(installID: install.id, projectID: project.id),
                annotations: try services.app.reports.annotations(installID: install.id, project: project), base: base)
            let clickRow =
                click.map { click in
                    "\(click.createdAt.iso8601) · \(Escape.html(click.platform ?? "–")) · \(Escape.html(click.source))\(click.isBot ? #" · <span class="bot">bot</span>"# : "")"
                } ?? "–"
            let body = """
                <h1>Install <code>\(Escape.html(install.id))</code>\(install.isTest ? #" <span class="badge">Test</span>"# : "")</h1>\
                \(install.isTest ? #"<p class="muted">Reported in a client's test mode: not counted in the overview, never sent to webhooks or postbacks.</p>"# : "")<table><tbody>\
                <tr><th>Installed</th><td>\(install.createdAt.iso8601)</td></tr>\
                <tr><th>SDK family</th><td>\(Escape.html(install.api))</td></tr>\
                <tr><th>Platform</th><td>\(Escape.html(install.platform ?? "–"))</td></tr>\
                <tr><th>Country</th><td>\(Escape.html(install.country ?? "–"))</td></tr>\
                <tr><th>Source</th><td>\(source(install))</td></tr>\
                <tr><th>Match</th><td>\(install.matchType), confidence \(confidence(install))</td></tr>\
                <tr><th>Matched on</th><td>\(Escape.html(install.matchedFactors.joined(separator: ", ")))</td></tr>\
                <tr><th>Link</th><td>\(install.shortCode.map { #"<a href="\#(base)/links/\#(Escape.html(install.linkID ?? ""))">\#(Escape.html($0))</a>"# } ?? "–")</td></tr>\
                <tr><th>Click</th><td>\(clickRow)</td></tr>\
                <tr><th>User</th><td>\(Escape.html(install.userID ?? "–"))</td></tr></tbody></table>\
                \(explanation)\
                <h2>Events (latest 100)</h2><table><thead><tr><th>Received</th><th>Name</th><th class="n">Value</th></tr></thead>\
                <tbody>\(events.isEmpty ? #"<tr><td colspan="3" class="muted">None.</td></tr>"# : events)</tbody></table>\
                <h2>Payments</h2><table><thead><tr><th>Captured</th><th>Payment id</th><th class="n">Amount</th><th></th></tr></thead>\
                <tbody>\(payments.isEmpty ? #"<tr><td colspan="4" class="muted">None.</td></tr>"# : payments)</tbody></table>\
                <h2>SKAN conversion values</h2><table><thead><tr><th>Window</th><th class="n">Fine</th><th>Coarse</th><th>State</th><th>Updated</th></tr></thead>\
                <tbody>\(skan.isEmpty ? #"<tr><td colspan="5" class="muted">None.</td></tr>"# : skan)</tbody></table>\
                \(deliveries.map { rows in
                    """
                    <h2>Webhook and postback deliveries</h2><table><thead><tr><th>Created</th><th>Kind</th><th>Event</th><th>Status</th>\
                    <th class="n">Attempts</th><th class="n">Last answer</th></tr></thead>\
                    <tbody>\(rows.isEmpty ? #"<tr><td colspan="6" class="muted">None.</td></tr>"# : rows)</tbody></table>
                    """
                } ?? "")\
                \(viewer.canChange(projectID: project.id) ? """
                    <h2>Erase (GDPR)</h2><form class="stack" method="post" action="\(base)/installs/\(Escape.html(install.id))/erase">\
                    \(DashboardPage.hiddenCSRF(viewer))<p class="muted">Deletes this install for good: its events, payments, SKAN values, \
                    its click's identifiers and its webhook and postback deliveries, as the admin API's erase does. It cannot be undone.</p>\
                    <label>Type <code>erase</code> to confirm<input name="confirm" autocomplete="off" required pattern="erase"></label>\
                    <button class="danger">Erase this install</button></form>
                    """ : "")
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
    static func explanation(_ text: String?, annotations: ExplanationAnnotations, base: String) throws -> String {
        guard let text, case .object(let recorded) = try JSONValueParser.parse(Array(text.utf8)) else {
            return #"<h2>How it was matched</h2><p class="muted">Not recorded: this install was stored before 0.2.0.</p>"#
        }
        let fields = annotations.applied(to: recorded)
        let decided = fields["decided_by"]?.stringValue ?? "none"
        let minimum = fields["min_confidence"]?.numberValue.map { String($0) } ?? "–"
        let considered = fields["candidates_considered"]?.numberValue.map { String(Int($0)) } ?? "0"
        var rows = ""
        if case .array(let candidates)? = fields["candidates"] {
            for case .object(let candidate) in candidates {
                let factors: String
                if case .array(let list)? = candidate["factors"] {
                    factors = list.compactMap(\.stringValue).joined(separator: ", ")
                } else {
                    factors = ""
                }
                rows += """
                    <tr><td><code>\(Escape.html(candidate["click_id"]?.stringValue ?? ""))</code></td>\
                    <td>\(Escape.html(candidate["clicked_at"]?.stringValue ?? ""))</td><td>\(Escape.html(candidate["found_by"]?.stringValue ?? ""))</td>\
                    <td class="n">\(candidate["score"]?.numberValue.map { String($0) } ?? "–")</td><td>\(Escape.html(factors))</td>\
                    <td>\(Escape.html(candidate["outcome"]?.stringValue ?? ""))</td></tr>
                    """
            }
        }
        for claim in annotations.claims {
            rows += """
                <tr><td>\(Escape.html(claim.source == "apple_ads" ? "Apple Ads claim" : claim.source))</td><td></td><td>claim</td>\
                <td class="n">\(claim.won ? "1.0" : "–")</td><td>\(Escape.html(claim.campaignID.map { "campaign \($0)" } ?? ""))</td>\
                <td>\(Escape.html(ExplanationAnnotations.outcome(of: claim)))</td></tr>
                """
        }
        for click in annotations.claimedEarlier {
            rows += """
                <tr><td><code>\(Escape.html(click.clickID))</code></td><td>\(click.clickedAt.iso8601)</td><td>network</td>\
                <td class="n">–</td><td></td><td>claimed by install <code>\(Escape.html(click.installID))</code> before this one came</td></tr>
                """
        }
        return """
            <h2>How it was matched</h2><p>Decided by <b>\(Escape.html(decided))</b>; \(considered) candidate clicks considered; \
            minimum confidence \(minimum).</p><table><thead><tr><th>Click</th><th>Clicked</th><th>Found by</th><th class="n">Score</th>\
            <th class="hide-narrow">Factors</th><th>Outcome</th></tr></thead>\
            <tbody>\(rows.isEmpty ? #"<tr><td colspan="6" class="muted">No click was a candidate: an organic install.</td></tr>"# : rows)</tbody></table>
            """
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
