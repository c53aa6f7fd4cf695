import App
import Attribution
import HTTP
import StoreContracts

/// A project's ad-platform connections for its admins (docs/ad-platforms/): each platform's
/// settings and credentials (shown masked; a credential left empty keeps the stored one), a test
/// event, removal. The forms go through the admin API's own service and checks.
enum AdPlatformsPage {
    /// What the page shows of one platform.
    struct Row {
        let platform: AdPlatform
        let connection: AdPlatformConnection?
        var fields: [(name: String, secret: Bool, value: String)] {
            let shape = AdPlatformService.shape(of: platform)
            return shape.settings.map { ($0, false, connection?.settings[$0] ?? "") }
                + shape.secrets.map { ($0, true, connection?.secrets[$0].map(AdPlatformService.masked) ?? "") }
        }
    }

    /// The view model: the four platforms in order, connected or not.
    static func rows(_ services: Services, projectID: String) throws -> [Row] {
        let connections = try services.app.adPlatforms.connections(projectID: projectID)
        return AdPlatform.allCases.map { platform in Row(platform: platform, connection: connections.first { $0.platform == platform }) }
    }

    static func show(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { _, viewer, project in try page(viewer, project, services, auth: auth, notice: nil) }
    }

    /// `POST …/ad-platforms/:platform`: the platform's fields by name.
    static func save(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            try answer(viewer, project, services, auth: auth) {
                let platform = try AdPlatformRoutes.platform(of: request)
                let shape = AdPlatformService.shape(of: platform)
                var settings: [String: String] = [:]
                var secrets: [String: String] = [:]
                for name in shape.settings { settings[name] = form.text(name) }
                for name in shape.secrets { secrets[name] = form.text(name) }
                _ = try services.app.adPlatforms.save(
                    projectID: project.id, platform: platform, AdPlatformService.Fields(settings: settings, secrets: secrets))
                return "\(platform.displayName) connected."
            }
        }
    }

    /// `POST …/ad-platforms/:platform/test`
    static func sendTest(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, _, project in
            try answer(viewer, project, services, auth: auth) {
                let platform = try AdPlatformRoutes.platform(of: request)
                _ = try services.app.adPlatforms.sendTestEvent(projectID: project.id, platform: platform)
                return "A test event is queued for \(platform.displayName); its delivery shows on the Outbound page."
            }
        }
    }

    /// `POST …/ad-platforms/:platform/delete`
    static func remove(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, _, project in
            try answer(viewer, project, services, auth: auth) {
                let platform = try AdPlatformRoutes.platform(of: request)
                try services.app.adPlatforms.delete(projectID: project.id, platform: platform)
                return "\(platform.displayName) disconnected: nothing more is sent to it."
            }
        }
    }

    private static func answer(
        _ viewer: DashboardViewer, _ project: Project, _ services: Services, auth: DashboardAuth, _ change: () throws -> String
    ) throws -> HTTPResponse {
        do {
            return try page(viewer, project, services, auth: auth, notice: try change())
        } catch {
            guard let problem = ClientErrors.httpError(for: error) else { throw error }
            return try page(
                viewer, project, services, auth: auth, notice: nil, problem: problem.message,
                code: problem.status == .notFound ? .notFound : .unprocessableContent)
        }
    }

    private static func page(
        _ viewer: DashboardViewer, _ project: Project, _ services: Services, auth: DashboardAuth, notice: String?,
        problem: String? = nil, code: HTTPStatus = .ok
    ) throws -> HTTPResponse {
        let base = "\(auth.prefix)/projects/\(project.id)/ad-platforms"
        let csrf = DashboardPage.csrfField(viewer)
        let sections = try rows(services, projectID: project.id).map { row -> HTML in
            let action = "\(base)/\(row.platform.rawValue)"
            let inputs = row.fields.map { field -> HTML in
                field.secret
                    ? #"<label>\#(field.name)<input name="\#(field.name)" type="password" autocomplete="off" placeholder="\#(field.value.isEmpty ? "not set" : field.value + " (empty keeps it)")"></label>"#
                    : #"<label>\#(field.name)<input name="\#(field.name)" value="\#(field.value)"></label>"#
            }
            let state: HTML = row.connection.map { $0.enabled ? "connected" : "connected, off" } ?? "not connected"
            let actions: HTML =
                row.connection == nil
                ? ""
                : """
                <form class="inline" method="post" action="\(action)/test">\(csrf)<button>Send test event</button></form> \
                <form class="inline" method="post" action="\(action)/delete">\(csrf)<button class="danger">Disconnect</button></form>
                """
            return """
                <section><h2>\(row.platform.displayName) <span class="muted">\(state)</span></h2>\(actions)\
                <form class="stack" method="post" action="\(action)">\(csrf)\(inputs)<button>Save</button></form></section>
                """
        }
        let noticeText: HTML = notice.map { #"<p class="notice" role="status">\#($0)</p>"# } ?? ""
        let problemLine: HTML = problem.map { #"<p class="error" role="alert">\#($0)</p>"# } ?? ""
        let body: HTML = """
            <h1>Ad platforms</h1>\(noticeText)\(problemLine)\
            <p class="muted">Installs, events and payments go to each connected platform through the outbox, with the user's \
            consent honoured; Google's answers and Meta's install referrer come back as claims (see the install's page).</p>\
            <div class="grid2">\(sections)</div>
            """
        return DashboardPage.render(
            title: "Ad platforms · \(project.name)", prefix: auth.prefix, viewer: viewer,
            projectNav: (project.id, project.name, "Ad platforms"), body: body, status: code)
    }
}
