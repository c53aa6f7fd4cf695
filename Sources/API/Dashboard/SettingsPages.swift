import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// A project's settings for its admins: API keys (issued and shown once, revoked) and dashboard
/// users (added with a role, removed — which signs them out). Viewers are refused.
enum SettingsPages {
    static func show(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            return try page(viewer, project, services, auth: auth, notice: nil, problem: nil)
        }
    }

    /// `POST …/settings/delete`: the server admin deletes the project after typing its name.
    static func deleteProject(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { _, viewer, form, project in
            guard viewer.session.user == nil else {
                return DashboardPage.message(
                    status: .forbidden, title: "Not allowed",
                    text: "Only the server admin (signed in with the admin key) deletes projects.", prefix: auth.prefix, viewer: viewer)
            }
            guard form.text("confirm") == project.name else {
                return DashboardPage.message(
                    status: .unprocessableContent, title: "Not deleted",
                    text: "Type the project's name exactly to delete it.", prefix: auth.prefix, viewer: viewer)
            }
            try services.app.projects.delete(projectID: project.id)
            return DashboardPage.message(
                status: .ok, title: "Project deleted",
                text: "\(project.name) and everything stored for it are gone.", prefix: auth.prefix, viewer: viewer)
        }
    }

    /// The settings form's fields: (form name, label, the admin API's key, kind).
    static let fields: [(name: String, label: String, kind: FieldKind)] = [
        ("ios_store_url", "App Store URL", .text),
        ("ios_app_store_id", "App Store id, for Apple's postback copies (empty: the one in the App Store URL)", .optionalNumber),
        ("android_store_url", "Play Store URL", .text), ("web_url", "Web URL", .text),
        ("attribution_window_hours", "Attribution window (hours)", .number), ("min_confidence", "Minimum confidence (0–1)", .number),
        ("currency", "Currency (ISO 4217)", .text),
        ("reporting_currency", "Reporting currency (ISO 4217): ROAS converts cost and revenue into it", .text),
        ("time_zone", "Time zone (IANA, e.g. Europe/Berlin): the dashboard's days", .text),
        ("skan", "SKAN conversion schema (JSON)", .json),
        ("ios_team_id", "Apple team id (10 characters, for universal links)", .text),
        ("ios_bundle_id", "iOS bundle id (com.example.app)", .text),
        ("android_package", "Android package (com.example.app, for app links)", .text),
        ("android_sha256", "Android signing certificates' SHA-256 fingerprints (AA:BB:…, one per line)", .list),
    ]

    /// `optionalNumber`: an empty field clears the setting (a `number` left empty keeps it);
    /// `list`: one value per line (or comma), empty for none.
    enum FieldKind { case text, number, optionalNumber, json, list }

    /// `POST …/settings/project`: the form's fields as the admin API's PATCH body, read by its own
    /// payload; an empty field clears the setting. Problems show beside their fields.
    static func updateProject(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            var project = project
            var body: [String: JSONValue] = [:]
            var problems: [String: String] = [:]
            for field in fields {
                guard let text = form[field.name]?.trimmingCharacters(in: .whitespacesAndNewlines) else { continue }
                if text.isEmpty {
                    body[field.name] =
                        field.name == "currency" || field.name == "reporting_currency" || field.kind == .number
                        ? nil : field.kind == .list ? .array([]) : .null
                    continue
                }
                switch field.kind {
                case .text: body[field.name] = .string(text)
                case .list:
                    body[field.name] = .array(
                        text.split(whereSeparator: { $0.isNewline || $0 == "," }).map {
                            .string($0.trimmingCharacters(in: .whitespaces))
                        }.filter { $0 != .string("") })
                case .number, .optionalNumber:
                    guard let number = Double(text) else {
                        problems[field.name] = "must be a number"
                        continue
                    }
                    body[field.name] = .number(number)
                case .json:
                    guard let value = try? JSONBody.decode(JSONValue.self, from: Array(text.utf8)) else {
                        problems[field.name] = "is not valid JSON"
                        continue
                    }
                    body[field.name] = value
                }
            }
            if let templates = UTMTemplateRows.json(form) { body["utm_templates"] = templates }
            // A hidden 0 precedes the checkbox, whose 1 follows when it is ticked.
            if let escape = form.fields.last(where: { $0.name == "in_app_escape" }) { body["in_app_escape"] = .bool(escape.value == "1") }
            do {
                guard problems.isEmpty else { throw AppError.invalidField("settings", "see the fields marked") }
                let update = try JSONBody.decode(ProjectUpdate.self, from: JSONValue.object(body).serialized())
                project.settings = try update.settings.applied(to: project.settings)
                let updated = try services.app.projects.update(project)
                return try page(viewer, updated, services, auth: auth, notice: "Settings saved.", problem: nil)
            } catch {
                switch error {
                case let error as AppError:
                    if case .invalid(let list) = error { for item in list where problems[item.key] == nil { problems[item.key] = item.message } }
                case let error as HTTPError:
                    let field =
                        error.message.hasPrefix("utm_templates")
                        ? "utm_templates"
                        : fields.first { error.message.contains($0.name) }?.name ?? (error.code == "invalid_skan_schema" ? "skan" : "settings")
                    problems[field] = error.message
                default:
                    throw error
                }
                return try page(
                    viewer, project, services, auth: auth, notice: nil, problem: "The settings were not saved.",
                    status: .unprocessableContent, form: form, problems: problems)
            }
        }
    }

    private static func projectForm(_ model: SettingsModel, base: String, csrf: HTML, problems: [String: String]) -> HTML {
        var html: HTML = #"<form class="stack" method="post" action="\#(base)/settings/project">"# + csrf
        if let general = problems["settings"] { html += #"<p class="error" role="alert">\#(general)</p>"# }
        for field in fields {
            let problem: HTML =
                problems.first { $0.key == field.name || $0.key.hasPrefix(field.name + ".") || $0.key.hasPrefix(field.name + "[") }
                .map { #"<span class="error" id="\#(field.name)-error">\#($0.value)</span>"# } ?? ""
            if field.name == "ios_team_id" {
                html += """
                    <h3>Universal links and app links</h3><p class="muted">With these set, this server serves \
                    <code>/.well-known/apple-app-site-association</code> and <code>/.well-known/assetlinks.json</code> \
                    for the project's links (on its domains, and on the server's own name).</p>
                    """
            }
            let described: HTML = problem.isEmpty ? "" : #" aria-invalid="true" aria-describedby="\#(field.name)-error""#
            let input: HTML =
                field.kind == .json || field.kind == .list
                ? #"<textarea name="\#(field.name)" rows="\#(field.kind == .json ? 6 : 3)"\#(described)>\#(model.value(of: field.name))</textarea>"#
                : #"<input name="\#(field.name)" value="\#(model.value(of: field.name))"\#(described)>"#
            html += "<label>\(field.label)\(input)\(problem)</label>"
        }
        html +=
            #"<input type="hidden" name="in_app_escape" value="0"><label><input type="checkbox" name="in_app_escape" value="1"\#(model.escapesInAppBrowsers ? " checked" : "" as HTML)> "#
            + ("Lead taps in social apps' browsers (Instagram, TikTok…) out to the system browser, where links open the app</label>" as HTML)
        html += UTMTemplateRows.render(
            model.form.map(UTMTemplateRows.values(of:)) ?? UTMTemplateRows.values(of: model.project.settings.utmTemplates),
            problem: problems["utm_templates"])
        return html + "<button>Save settings</button></form>"
    }

    static func issueKey(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            let test = form["mode"] == "test"
            let format: APIKeyFormat =
                switch form["format"] {
                case "warplink": .warplink(test: test)
                case "branch": .branch(test: test)
                default: .standard
                }
            let issued = try services.app.projects.issueAPIKey(projectID: project.id, format: format)
            return try page(
                viewer, project, services, auth: auth,
                notice: "New API key (shown only now, copy it): \(issued.key)", problem: nil, status: .created)
        }
    }

    static func revokeKey(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, _, project in
            try services.app.projects.revokeAPIKey(projectID: project.id, keyID: try request.parameter("keyId"))
            return DashboardPage.redirect(to: "\(auth.prefix)/projects/\(project.id)/settings")
        }
    }

    static func addUser(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            do {
                let role = DashboardRole(rawValue: form["role"] ?? "") ?? .viewer
                let user = try services.app.dashboard.createUser(
                    projectID: project.id, email: form.text("email") ?? "",
                    password: form["password"] ?? "", role: role)
                return try page(
                    viewer, project, services, auth: auth, notice: "Added \(user.email) (\(user.role.rawValue))", problem: nil,
                    status: .created)
            } catch let error as AppError {
                return try page(viewer, project, services, auth: auth, notice: nil, problem: error.message, status: .unprocessableContent)
            }
        }
    }

    static func removeUser(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, _, project in
            try services.app.dashboard.deleteUser(id: try request.parameter("userId"), projectID: project.id)
            return DashboardPage.redirect(to: "\(auth.prefix)/projects/\(project.id)/settings")
        }
    }

    static func addDomain(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            do {
                let domain = try services.app.domains.add(projectID: project.id, name: form.text("domain") ?? "")
                return try page(viewer, project, services, auth: auth, notice: "Added \(domain.domain)", problem: nil, status: .created)
            } catch let error as AppError {
                return try page(viewer, project, services, auth: auth, notice: nil, problem: error.message, status: .unprocessableContent)
            } catch StoreError.conflict(let message) {
                return try page(viewer, project, services, auth: auth, notice: nil, problem: message, status: .conflict)
            }
        }
    }

    static func removeDomain(_ services: Services) -> ProjectForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form, project in
            let id = try request.parameter("domainId")
            guard let domain = try services.app.domains.list(projectID: project.id).first(where: { $0.id == id }) else {
                throw HTTPError.notFound("no domain \(id)")
            }
            // Removing deletes the domain's links: the name typed confirms it, as deleting a project does.
            let links = try services.app.domains.linkCount(id: id, projectID: project.id)
            guard links == 0 || form.text("confirm")?.trimmingCharacters(in: .whitespaces).lowercased() == domain.domain else {
                let problem =
                    "\(links) link\(links == 1 ? "" : "s") on \(domain.domain) stop working when it is removed (they are deleted with it): "
                    + "type the domain's name beside Remove to confirm"
                return try page(viewer, project, services, auth: auth, notice: nil, problem: problem, status: .conflict)
            }
            try services.app.domains.remove(id: id, projectID: project.id, force: true)
            return DashboardPage.redirect(to: "\(auth.prefix)/projects/\(project.id)/settings")
        }
    }

    /// The project's domains, with the DNS to set up and the `.well-known` files they serve, and
    /// the form that adds one.
    private static func domainsSection(_ model: SettingsModel, base: String, csrf: HTML) -> HTML {
        func file(_ name: String, _ body: String?) -> HTML {
            guard let body else { return #"<p class="muted">\#(name): none (the project has no app for it yet).</p>"# }
            return "<details><summary>\(name)</summary><pre>\(body)</pre></details>"
        }
        let rows = model.domains.map { row -> HTML in
            let confirm: HTML =
                row.links > 0
                ? #"<input name="confirm" size="16" placeholder="type its name" aria-label="type the domain's name to confirm" autocomplete="off">"#
                : ""
            return """
                <tr><td><code>\(row.domain.domain)</code></td><td>\(row.domain.createdAt.iso8601)</td>\
                <td>\(row.certificate)</td><td>\(row.links)</td>\
                <td><form class="inline" method="post" action="\(base)/settings/domains/\(row.domain.id)/remove">\(csrf)\
                \(confirm)<button class="secondary">Remove</button></form></td></tr>
                """
        }
        let table: HTML =
            rows.isEmpty
            ? #"<p class="muted">No domain yet: links are served on this server's own name.</p>"#
            : "<table><thead><tr><th>Domain</th><th>Added</th><th>Certificate</th><th>Links</th><th></th></tr></thead><tbody>\(rows)</tbody></table>"
        return """
            <h2>Domains</h2>\(table)\
            <p class="muted">Point each domain's DNS at this server (an A/AAAA record, or a CNAME to the name you reach it by); \
            HTTPS comes from the proxy in front, which may ask <code>/tls/allowed?domain=…</code>. On its domains the project \
            serves its own links and these files:</p>\
            \(file("/.well-known/apple-app-site-association", model.appleAppSiteAssociation))\(file("/.well-known/assetlinks.json", model.assetLinks))\
            <form class="stack" method="post" action="\(base)/settings/domains">\(csrf)\
            <label>Domain<input name="domain" placeholder="links.example.com" autocomplete="off" required></label>\
            <button>Add domain</button></form>
            """
    }

    private static func page(
        _ viewer: DashboardViewer, _ project: Project, _ services: Services, auth: DashboardAuth,
        notice: String?, problem: String?, status: HTTPStatus = .ok,
        form: DashboardForm? = nil, problems: [String: String] = [:]
    ) throws -> HTTPResponse {
        let model = try SettingsModel.load(viewer, project: project, form: form, services: services)
        return DashboardPage.render(
            title: "Settings · \(project.name)", prefix: auth.prefix, viewer: viewer,
            projectNav: (project.id, project.name, "Settings"),
            body: render(model, base: "\(auth.prefix)/projects/\(project.id)", viewer: viewer, notice: notice, problem: problem, problems: problems),
            status: status)
    }

    static func render(
        _ model: SettingsModel, base: String, viewer: DashboardViewer, notice: String?, problem: String?, problems: [String: String]
    ) -> HTML {
        let csrf = DashboardPage.csrfField(viewer)
        let keys = model.keys.map { key -> HTML in
            let revoke: HTML =
                key.revokedAt == nil
                ? """
                <form class="inline" method="post" action="\(base)/settings/api-keys/\(key.id)/revoke">\(csrf)\
                <button class="danger">Revoke</button></form>
                """ : ""
            return """
                <tr><td><code>\(key.prefix)…</code></td><td>\(key.createdAt.iso8601)</td>\
                <td>\(key.revokedAt.map { "revoked \($0.iso8601)" } ?? "active")</td><td>\(revoke)</td></tr>
                """
        }
        let users = model.users.map { user -> HTML in
            """
            <tr><td>\(user.email)</td><td>\(user.role.rawValue)</td><td><form class="inline" method="post" \
            action="\(base)/settings/users/\(user.id)/remove">\(csrf)<button class="danger">Remove</button></form></td></tr>
            """
        }
        let noticeText: HTML = notice.map { #"<p class="notice" role="status">\#($0)</p>"# } ?? ""
        let problemText: HTML = problem.map { #"<p class="error" role="alert">\#($0)</p>"# } ?? ""
        let deletion: HTML =
            model.canDeleteProject
            ? """
            <h2>Delete this project</h2><form class="stack" method="post" action="\(base)/settings/delete">\(csrf)\
            <p class="muted">Deletes the project and everything stored for it: links, clicks, installs, events, payments, \
            users, keys, webhooks and their deliveries. Apps using its token or keys get 401 from then on. It cannot be undone.</p>\
            <label>Type <code>\(model.project.name)</code> to confirm<input name="confirm" autocomplete="off" required></label>\
            <button class="danger">Delete the project</button></form>
            """ : ""
        return """
            <h1>Settings</h1>\(noticeText)\
            \(problemText)\
            <h2>Project</h2>\(projectForm(model, base: base, csrf: csrf, problems: problems))\
            \(domainsSection(model, base: base, csrf: csrf))\
            <h2>API keys</h2><table><thead><tr><th>Key</th><th>Created</th><th>State</th><th></th></tr></thead><tbody>\(keys)</tbody></table>\
            <form class="stack" method="post" action="\(base)/settings/api-keys">\(csrf)<label>Format<select name="format">\
            <option value="standard">attributiond / Linkrunner / LinkForty</option><option value="warplink">WarpLink (wl_live_…)</option><option value="branch">Branch (key_live_…)</option></select></label>\
            <button>Issue a key</button></form>\
            <h2>Dashboard users</h2><table><thead><tr><th>Email</th><th>Role</th><th></th></tr></thead><tbody>\(users)</tbody></table>\
            <form class="stack" method="post" action="\(base)/settings/users">\(csrf)\
            <label>Email<input name="email" type="email" required></label>\
            <label>Password (10 characters or more)<input name="password" type="password" autocomplete="new-password" required></label>\
            <label>Role<select name="role"><option value="viewer">viewer</option><option value="admin">admin</option></select></label>\
            <button>Add user</button></form>\
            \(deletion)
            """
    }
}
