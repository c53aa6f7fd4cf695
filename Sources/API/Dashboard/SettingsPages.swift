import App
import Attribution
import HTTP
import Store

/// A project's settings for its admins: API keys (issued and shown once, revoked) and dashboard
/// users (added with a role, removed — which signs them out). Viewers are refused.
enum SettingsPages {
    static func show(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return auth.page { request, viewer in
            let project = try DashboardProjects.readable(request, viewer, services)
            guard viewer.canChange(projectID: project.id) else { return LinkPages.refused(auth, viewer) }
            return try page(viewer, project, services, auth: auth, notice: nil, problem: nil)
        }
    }

    static func issueKey(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return auth.form { request, viewer, form in
            let project = try DashboardProjects.readable(request, viewer, services)
            guard viewer.canChange(projectID: project.id) else { return LinkPages.refused(auth, viewer) }
            let format: APIKeyFormat = form["format"] == "warplink" ? .warplink(test: form["mode"] == "test") : .standard
            let issued = try services.app.projects.issueAPIKey(projectID: project.id, format: format)
            return try page(viewer, project, services, auth: auth,
                            notice: "New API key (shown only now, copy it): \(issued.key)", problem: nil, status: .created)
        }
    }

    static func revokeKey(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return auth.form { request, viewer, _ in
            let project = try DashboardProjects.readable(request, viewer, services)
            guard viewer.canChange(projectID: project.id) else { return LinkPages.refused(auth, viewer) }
            try services.app.projects.revokeAPIKey(projectID: project.id, keyID: request.pathParameters["keyId"] ?? "")
            return DashboardPage.redirect(to: "\(auth.prefix)/projects/\(project.id)/settings")
        }
    }

    static func addUser(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return auth.form { request, viewer, form in
            let project = try DashboardProjects.readable(request, viewer, services)
            guard viewer.canChange(projectID: project.id) else { return LinkPages.refused(auth, viewer) }
            do {
                let role = DashboardRole(rawValue: form["role"] ?? "") ?? .viewer
                let user = try services.app.dashboard.createUser(projectID: project.id, email: form.text("email") ?? "",
                                                                  password: form["password"] ?? "", role: role)
                return try page(viewer, project, services, auth: auth, notice: "Added \(user.email) (\(user.role.rawValue))", problem: nil,
                                status: .created)
            } catch let error as AppError {
                return try page(viewer, project, services, auth: auth, notice: nil, problem: error.message, status: .unprocessableContent)
            }
        }
    }

    static func removeUser(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return auth.form { request, viewer, _ in
            let project = try DashboardProjects.readable(request, viewer, services)
            guard viewer.canChange(projectID: project.id) else { return LinkPages.refused(auth, viewer) }
            try services.app.dashboard.deleteUser(id: request.pathParameters["userId"] ?? "", projectID: project.id)
            return DashboardPage.redirect(to: "\(auth.prefix)/projects/\(project.id)/settings")
        }
    }

    private static func page(_ viewer: DashboardViewer, _ project: Project, _ services: Services, auth: DashboardAuth,
                             notice: String?, problem: String?, status: HTTPStatus = .ok) throws -> HTTPResponse {
        let base = "\(auth.prefix)/projects/\(Escape.html(project.id))"
        let csrf = DashboardPage.hiddenCSRF(viewer)
        let keys = try services.app.projects.apiKeys(projectID: project.id).map { key in
            let revoke = key.revokedAt == nil ? """
                <form class="inline" method="post" action="\(base)/settings/api-keys/\(Escape.html(key.id))/revoke">\(csrf)\
                <button class="danger">Revoke</button></form>
                """ : ""
            return """
                <tr><td><code>\(Escape.html(key.prefix))…</code></td><td>\(key.createdAt.iso8601)</td>\
                <td>\(key.revokedAt.map { "revoked \($0.iso8601)" } ?? "active")</td><td>\(revoke)</td></tr>
                """
        }.joined()
        let users = try services.app.dashboard.users(projectID: project.id).map { user in
            """
            <tr><td>\(Escape.html(user.email))</td><td>\(user.role.rawValue)</td><td><form class="inline" method="post" \
            action="\(base)/settings/users/\(Escape.html(user.id))/remove">\(csrf)<button class="danger">Remove</button></form></td></tr>
            """
        }.joined()
        let settings = project.settings
        let body = """
            <h1>Settings</h1>\(notice.map { #"<p class="notice" role="status">\#(Escape.html($0))</p>"# } ?? "")\
            \(problem.map { #"<p class="error" role="alert">\#(Escape.html($0))</p>"# } ?? "")\
            <h2>Project</h2><table><tbody>\
            <tr><th>iOS store URL</th><td>\(Escape.html(settings.iosStoreURL ?? "–"))</td></tr>\
            <tr><th>Android store URL</th><td>\(Escape.html(settings.androidStoreURL ?? "–"))</td></tr>\
            <tr><th>Attribution window</th><td>\(settings.attributionWindowHours) h</td></tr>\
            <tr><th>Minimum confidence</th><td>\(settings.minConfidence)</td></tr>\
            <tr><th>Currency</th><td>\(Escape.html(settings.currency))</td></tr></tbody></table>\
            <h2>API keys</h2><table><thead><tr><th>Key</th><th>Created</th><th>State</th><th></th></tr></thead><tbody>\(keys)</tbody></table>\
            <form class="stack" method="post" action="\(base)/settings/api-keys">\(csrf)<label>Format<select name="format">\
            <option value="standard">attributiond / Linkrunner / LinkForty</option><option value="warplink">WarpLink (wl_live_…)</option></select></label>\
            <button>Issue a key</button></form>\
            <h2>Dashboard users</h2><table><thead><tr><th>Email</th><th>Role</th><th></th></tr></thead><tbody>\(users)</tbody></table>\
            <form class="stack" method="post" action="\(base)/settings/users">\(csrf)\
            <label>Email<input name="email" type="email" required></label>\
            <label>Password (10 characters or more)<input name="password" type="password" autocomplete="new-password" required></label>\
            <label>Role<select name="role"><option value="viewer">viewer</option><option value="admin">admin</option></select></label>\
            <button>Add user</button></form>
            """
        return DashboardPage.render(title: "Settings · \(project.name)", prefix: auth.prefix, viewer: viewer,
                                    projectNav: (project.id, project.name, "Settings"), body: body, status: status)
    }
}
