import App
import Attribution
import HTTP
import Store

/// A project's webhooks and postbacks for its admins: endpoints (never their secrets), postback
/// templates, and the latest deliveries with their last answer, failed ones replayable. Endpoints
/// and templates are made with the admin API or `attributiond webhooks` (docs/outbound.md).
enum OutboundPage {
    static func show(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return auth.adminPage { request, viewer, project in
            return try page(viewer, project, services, auth: auth, status: request.queryValue("status"), notice: nil)
        }
    }

    /// `POST …/outbound/deliveries/:deliveryId/replay`
    static func replay(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return auth.adminForm { request, viewer, _, project in
            try services.app.webhooks.replay(deliveryID: request.pathParameters["deliveryId"] ?? "", projectID: project.id)
            return try page(viewer, project, services, auth: auth, status: nil, notice: "Delivery queued again.")
        }
    }

    private static func page(_ viewer: DashboardViewer, _ project: Project, _ services: Services, auth: DashboardAuth,
                             status: String?, notice: String?) throws -> HTTPResponse {
        let base = "\(auth.prefix)/projects/\(Escape.html(project.id))"
        let endpoints = try services.app.webhooks.list(projectID: project.id).map { endpoint in
            """
            <tr><td>\(Escape.html(endpoint.url))</td><td>\(Escape.html(endpoint.events?.joined(separator: ", ") ?? "every event"))</td>\
            <td>\(endpoint.enabled ? "on" : "off\(endpoint.disabledReason.map { " (\(Escape.html($0)))" } ?? "")")</td></tr>
            """
        }.joined()
        let templates = try services.app.postbacks.list(projectID: project.id).map { template in
            """
            <tr><td>\(Escape.html(template.network))</td><td>\(Escape.html(template.trigger))</td>\
            <td class="hide-narrow">\(Escape.html(template.method)) \(Escape.html(template.url))</td><td>\(template.enabled ? "on" : "off")</td></tr>
            """
        }.joined()
        let filter = status.flatMap(OutboxJob.Status.init(rawValue:))
        let deliveries = try services.app.webhooks.deliveries(projectID: project.id, status: filter, kind: nil, since: nil, limit: 50).map { job in
            let replay = job.status == .failed ? """
                <form class="inline" method="post" action="\(base)/outbound/deliveries/\(Escape.html(job.message.id))/replay">\
                \(DashboardPage.hiddenCSRF(viewer))<button>Replay</button></form>
                """ : ""
            return """
                <tr><td>\(job.message.createdAt.iso8601)</td><td>\(Escape.html(job.message.kind))</td><td>\(Escape.html(job.message.eventType))</td>\
                <td>\(job.status.rawValue)</td><td class="n">\(job.attempts)</td><td class="n">\(job.lastStatusCode.map(String.init) ?? "–")</td>\
                <td class="hide-narrow">\(Escape.html(String((job.lastError ?? job.lastResponse ?? "").prefix(120))))</td><td>\(replay)</td></tr>
                """
        }.joined()
        let filters = [("", "All"), ("pending", "Pending"), ("delivered", "Delivered"), ("failed", "Failed")].map { key, label in
            let current = (status ?? "") == key ? #" aria-current="page""# : ""
            return #"<a href="\#(base)/outbound\#(key.isEmpty ? "" : "?status=" + key)"\#(current)>\#(label)</a>"#
        }.joined()
        let body = """
            <h1>Webhooks and postbacks</h1>\(notice.map { #"<p class="notice" role="status">\#(Escape.html($0))</p>"# } ?? "")\
            <h2>Webhook endpoints</h2><table><thead><tr><th>URL</th><th>Events</th><th>State</th></tr></thead>\
            <tbody>\(endpoints.isEmpty ? #"<tr><td colspan="3" class="muted">None: add one with POST …/webhooks (docs/outbound.md).</td></tr>"# : endpoints)</tbody></table>\
            <h2>Postback templates</h2><table><thead><tr><th>Network</th><th>Trigger</th><th class="hide-narrow">Request</th><th>State</th></tr></thead>\
            <tbody>\(templates.isEmpty ? #"<tr><td colspan="4" class="muted">None.</td></tr>"# : templates)</tbody></table>\
            <h2>Latest deliveries</h2><div class="ranges">\(filters)</div>\
            <table><thead><tr><th>Created</th><th>Kind</th><th>Event</th><th>Status</th><th class="n">Attempts</th><th class="n">Last code</th>\
            <th class="hide-narrow">Last answer</th><th></th></tr></thead>\
            <tbody>\(deliveries.isEmpty ? #"<tr><td colspan="8" class="muted">No deliveries.</td></tr>"# : deliveries)</tbody></table>
            """
        return DashboardPage.render(title: "Outbound · \(project.name)", prefix: auth.prefix, viewer: viewer,
                                    projectNav: (project.id, project.name, "Outbound"), body: body)
    }
}
