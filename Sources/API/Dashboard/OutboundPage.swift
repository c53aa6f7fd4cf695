import App
import Attribution
import HTTP
import StoreContracts

/// A project's webhooks and postbacks for its admins: endpoints (a secret shown once, when made or
/// rotated), postback templates, each added and removed through forms checked by the admin API's
/// own services, and the latest deliveries with their last answer, failed ones replayable.
enum OutboundPage {
    static func show(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            return try page(viewer, project, services, auth: auth, status: request.queryValue("status"), notice: nil)
        }
    }

    /// `POST …/outbound/deliveries/:deliveryId/replay`
    static func replay(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, _, project in
            try services.app.webhooks.replay(deliveryID: try request.parameter("deliveryId"), projectID: project.id)
            return try page(viewer, project, services, auth: auth, status: nil, notice: "Delivery queued again.")
        }
    }

    /// `POST …/outbound/webhooks`: `url`, `events` (names separated by commas or spaces; empty:
    /// every event). The new secret is shown once.
    static func addEndpoint(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { _, viewer, form, project in
            try answer(viewer, project, services, auth: auth, form: form) {
                guard let url = form.text("url") else { throw HTTPError.invalidField("url", "is required") }
                let events = form.text("events").map { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
                let endpoint = try services.app.webhooks.create(projectID: project.id, url: url, events: events)
                return "Endpoint added. Its signing secret, shown this once: \(endpoint.secret)"
            }
        }
    }

    /// `POST …/outbound/webhooks/:webhookId/rotate`: a new secret, shown once; the old one still
    /// signs beside it for 24 hours.
    static func rotateSecret(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            try answer(viewer, project, services, auth: auth, form: form) {
                let endpoint = try services.app.webhooks.rotateSecret(id: try request.parameter("webhookId"), projectID: project.id)
                return "New signing secret, shown this once (the old one signs too for 24 hours): \(endpoint.secret)"
            }
        }
    }

    /// `POST …/outbound/webhooks/:webhookId/test`: a `webhook.test` event queued for the endpoint.
    static func sendTest(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            try answer(viewer, project, services, auth: auth, form: form) {
                _ = try services.app.webhooks.sendTest(id: try request.parameter("webhookId"), projectID: project.id)
                return "A test event is queued for the endpoint; its delivery shows below."
            }
        }
    }

    /// `POST …/outbound/webhooks/:webhookId/enabled` with `enabled=0|1`: events stop or start
    /// going to the endpoint (what is queued for it stays queued).
    static func setEnabled(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            try answer(viewer, project, services, auth: auth, form: form) {
                let enabled = form["enabled"] == "1"
                _ = try services.app.webhooks.update(
                    id: try request.parameter("webhookId"), projectID: project.id,
                    changes: .init(url: nil, events: nil, enabled: enabled))
                return enabled ? "Endpoint turned on." : "Endpoint turned off: no new events go to it."
            }
        }
    }

    /// `POST …/outbound/webhooks/:webhookId/delete`
    static func removeEndpoint(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            try answer(viewer, project, services, auth: auth, form: form) {
                try services.app.webhooks.delete(id: try request.parameter("webhookId"), projectID: project.id)
                return "Endpoint removed."
            }
        }
    }

    /// `POST …/outbound/postbacks`: the admin API's template fields (an unknown macro is refused).
    static func addTemplate(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { _, viewer, form, project in
            try answer(viewer, project, services, auth: auth, form: form) {
                let fields = PostbackService.Fields(
                    network: form.text("network"), trigger: form.text("trigger"), method: form.text("method"),
                    url: form.text("url"), body: form.text("body").map { .some($0) } ?? nil)
                let template = try services.app.postbacks.create(projectID: project.id, fields)
                return "Postback for \(template.network) on \(template.trigger) added."
            }
        }
    }

    /// `POST …/outbound/postbacks/:postbackId/delete`
    static func removeTemplate(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            try answer(viewer, project, services, auth: auth, form: form) {
                try services.app.postbacks.delete(id: try request.parameter("postbackId"), projectID: project.id)
                return "Postback removed."
            }
        }
    }

    /// The page with `change`'s notice, or with its problem (422) and the form as it was sent.
    private static func answer(
        _ viewer: DashboardViewer, _ project: Project, _ services: Services, auth: DashboardAuth,
        form: DashboardForm, _ change: () throws -> String
    ) throws -> HTTPResponse {
        do {
            return try page(viewer, project, services, auth: auth, status: nil, notice: try change())
        } catch {
            guard let problem = ClientErrors.httpError(for: error) else { throw error }
            return try page(
                viewer, project, services, auth: auth, status: nil, notice: nil, problem: problem.message, form: form,
                code: problem.status == .notFound ? .notFound : .unprocessableContent)
        }
    }

    private static func page(
        _ viewer: DashboardViewer, _ project: Project, _ services: Services, auth: DashboardAuth,
        status: String?, notice: String?, problem: String? = nil, form: DashboardForm? = nil,
        code: HTTPStatus = .ok
    ) throws -> HTTPResponse {
        let base = "\(auth.prefix)/projects/\(project.id)"
        let csrf = DashboardPage.csrfField(viewer)
        func button(_ action: String, _ label: String, danger: Bool = false, field: (String, String)? = nil) -> HTML {
            let hidden: HTML = field.map { #"<input type="hidden" name="\#($0.0)" value="\#($0.1)">"# } ?? ""
            return
                #"<form class="inline" method="post" action="\#(action)">\#(csrf)\#(hidden)<button\#(if: danger, #" class="danger""#)>\#(label)</button></form>"#
        }
        let endpoints = try services.app.webhooks.list(projectID: project.id).map { endpoint -> HTML in
            let path = "\(base)/outbound/webhooks/\(endpoint.id)"
            return """
                <tr><td>\(endpoint.url)</td><td>\(endpoint.events?.joined(separator: ", ") ?? "every event")</td>\
                <td>\(endpoint.enabled ? "on" : "off\(endpoint.disabledReason.map { " (\($0))" } ?? "")")</td>\
                <td>\(button(path + "/test", "Send test")) \
                \(button(path + "/enabled", endpoint.enabled ? "Turn off" : "Turn on", field: ("enabled", endpoint.enabled ? "0" : "1"))) \
                \(button(path + "/rotate", "Rotate secret")) \(button(path + "/delete", "Remove", danger: true))</td></tr>
                """
        }
        let templates = try services.app.postbacks.list(projectID: project.id).map { template -> HTML in
            """
            <tr><td>\(template.network)</td><td>\(template.trigger)</td>\
            <td class="hide-narrow">\(template.method) \(template.url)</td><td>\(template.enabled ? "on" : "off")</td>\
            <td>\(button("\(base)/outbound/postbacks/\(template.id)/delete", "Remove", danger: true))</td></tr>
            """
        }
        func value(_ name: String) -> String { form?[name] ?? "" }
        let problemLine: HTML = problem.map { #"<p class="error" role="alert">\#($0)</p>"# } ?? ""
        let posts = form?["method"] == "POST"
        let forms: HTML = """
            \(problemLine)<div class="grid2"><form class="stack" method="post" action="\(base)/outbound/webhooks">\(csrf)<b>Add a webhook endpoint</b>\
            <label>URL<input name="url" type="url" value="\(value("url"))"></label>\
            <label>Events (empty: every event; e.g. install.attributed, payment.captured)<input name="events" value="\(value("events"))"></label>\
            <button>Add endpoint</button></form>\
            <form class="stack" method="post" action="\(base)/outbound/postbacks">\(csrf)<b>Add a postback</b>\
            <label>Network<input name="network" value="\(value("network"))"></label>\
            <label>Trigger (install, or an event's name)<input name="trigger" value="\(value("trigger"))"></label>\
            <label>Method<select name="method"><option\(if: !posts, " selected")>GET</option>\
            <option\(if: posts, " selected")>POST</option></select></label>\
            <label>URL with macros, e.g. {network_click_id}<input name="url" value="\(value("url"))"></label>\
            <label>Body (POST, optional)<textarea name="body" rows="2">\(value("body"))</textarea></label>\
            <button>Add postback</button></form></div>
            """
        let filter = status.flatMap(OutboxJob.Status.init(rawValue:))
        let deliveries = try services.app.webhooks.deliveries(projectID: project.id, status: filter, kind: nil, since: nil, limit: 50).map {
            job -> HTML in
            let replay: HTML =
                job.status == .failed
                ? """
                <form class="inline" method="post" action="\(base)/outbound/deliveries/\(job.message.id)/replay">\
                \(csrf)<button>Replay</button></form>
                """ : ""
            return """
                <tr><td><a href="\(base)/outbound/deliveries/\(job.message.id)">\(job.message.createdAt.iso8601)</a></td>\
                <td>\(job.message.kind)</td><td>\(job.message.eventType)</td>\
                <td class="hide-narrow">\(DeliveryPage.shortTarget(job.message.targetURL))</td>\
                <td>\(job.status.rawValue)</td><td class="n">\(job.attempts)</td><td class="n">\(job.lastStatusCode.map(String.init) ?? "–")</td>\
                <td class="hide-narrow">\(String((job.lastError ?? job.lastResponse ?? "").prefix(120)))</td><td>\(replay)</td></tr>
                """
        }
        let filters = [("", "All"), ("pending", "Pending"), ("delivered", "Delivered"), ("failed", "Failed")].map { key, label -> HTML in
            let current: HTML = (status ?? "") == key ? #" aria-current="page""# : ""
            return #"<a href="\#(base)/outbound\#(key.isEmpty ? "" : "?status=" + key)"\#(current)>\#(label)</a>"#
        }
        let noticeText: HTML = notice.map { #"<p class="notice" role="status">\#($0)</p>"# } ?? ""
        let body: HTML = """
            <h1>Webhooks and postbacks</h1>\(noticeText)\
            <h2>Webhook endpoints</h2><table><thead><tr><th>URL</th><th>Events</th><th>State</th><th></th></tr></thead>\
            <tbody>\(endpoints, otherwise: #"<tr><td colspan="4" class="muted">None yet.</td></tr>"#)</tbody></table>\
            <h2>Postback templates</h2><table><thead><tr><th>Network</th><th>Trigger</th><th class="hide-narrow">Request</th><th>State</th><th></th></tr></thead>\
            <tbody>\(templates, otherwise: #"<tr><td colspan="5" class="muted">None yet.</td></tr>"#)</tbody></table>\
            \(forms)\
            <h2>Latest deliveries</h2><div class="ranges">\(filters)</div>\
            <table><thead><tr><th>Created</th><th>Kind</th><th>Event</th><th class="hide-narrow">Target</th><th>Status</th><th class="n">Attempts</th>\
            <th class="n">Last code</th><th class="hide-narrow">Last answer</th><th></th></tr></thead>\
            <tbody>\(deliveries, otherwise: #"<tr><td colspan="9" class="muted">No deliveries.</td></tr>"#)</tbody></table>
            """
        return DashboardPage.render(
            title: "Outbound · \(project.name)", prefix: auth.prefix, viewer: viewer,
            projectNav: (project.id, project.name, "Outbound"), body: body, status: code)
    }
}
