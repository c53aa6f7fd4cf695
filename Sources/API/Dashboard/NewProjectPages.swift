import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// A project made from the dashboard (server admins: signed in with the admin key), and the page
/// that says how to connect an app to it, with its token and first API key shown once.
enum NewProjectPages {
    /// The form on the projects page.
    static func form(prefix: String, csrf: HTML) -> HTML {
        """
        <h2>New project</h2><form class="stack" method="post" action="\(prefix)/projects">\(csrf)\
        <label>Name<input name="name" required maxlength="100" autocomplete="off"></label>\
        <label>App Store URL (optional)<input name="ios_store_url" type="url" placeholder="https://apps.apple.com/app/id…"></label>\
        <label>Play Store URL (optional)<input name="android_store_url" type="url" placeholder="https://play.google.com/store/apps/details?id=…"></label>\
        <label>Website (optional)<input name="web_url" type="url" placeholder="https://…"></label>\
        <label class="check"><input type="checkbox" name="test_mode" value="1"> Test mode: a sandbox with a clock of its own, \
        moved forward by hand, to try windows, schemas and postbacks (cannot be changed later; not for a live app)</label>\
        <button>Create project</button></form>
        """
    }

    /// `POST {prefix}/projects`
    static func create(_ services: Services) -> SignedInForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, form in
            guard viewer.session.user == nil else {
                return DashboardPage.message(
                    status: .forbidden, title: "Not allowed", text: "Only a server admin (signed in with the admin key) makes projects.",
                    prefix: auth.prefix, viewer: viewer)
            }
            var settings = ProjectSettings()
            settings.iosStoreURL = form.text("ios_store_url")
            settings.androidStoreURL = form.text("android_store_url")
            settings.webURL = form.text("web_url")
            let created: CreatedProject
            do {
                created = try services.app.projects.create(
                    name: form.text("name") ?? "", settings: settings, testMode: form["test_mode"] == "1")
            } catch let error as AppError {
                let body: HTML = """
                    <h1>New project</h1><p class="error" role="alert">\(error.message.replacingOccurrences(of: "ios_store_url", with: "App Store URL").replacingOccurrences(of: "android_store_url", with: "Play Store URL").replacingOccurrences(of: "web_url", with: "Website"))</p>\
                    \(Self.form(prefix: auth.prefix, csrf: DashboardPage.csrfField(viewer)))
                    """
                return DashboardPage.render(title: "New project", prefix: auth.prefix, viewer: viewer, body: body, status: .unprocessableContent)
            } catch StoreError.conflict(let message) {
                return DashboardPage.message(status: .conflict, title: "New project", text: message, prefix: auth.prefix, viewer: viewer)
            }
            return connect(created, base: LinkURLs.base(for: request, services: services), prefix: auth.prefix, viewer: viewer)
        }
    }

    /// What an app needs: the base URL and the project's credentials (shown once), per SDK family.
    static func connect(_ created: CreatedProject, base: String, prefix: String, viewer: DashboardViewer) -> HTTPResponse {
        let project = created.project
        let key = created.apiKey.key
        let token = created.token
        let body: HTML = """
            <h1>Connect your app to \(project.name)</h1>\
            <p class="notice" role="status">Copy the token and the API key now: they are shown only once (Settings issues new keys).</p>\
            <table><tbody><tr><th>Base URL</th><td><code>\(base)</code></td></tr>\
            <tr><th>API key</th><td><code>\(key)</code></td></tr><tr><th>App token (Linkrunner SDKs)</th><td><code>\(token)</code></td></tr>\
            </tbody></table>\
            <h2>LinkForty SDKs (iOS, Android, React Native, Flutter, Expo)</h2>\
            <pre>LinkFortyConfig(baseURL: URL(string: "\(base)")!, apiKey: "\(key)")</pre>\
            <h2>WarpLink SDKs</h2><p>Issue a WarpLink-shaped key (<code>wl_live_…</code>) in Settings, then:</p>\
            <pre>WarpLinkOptions(apiEndpoint: "\(base)/v1")</pre>\
            <h2>Linkrunner REST clients</h2><p>Replace <code>https://api.linkrunner.io</code> by <code>\(base)</code> and send the token above.</p>\
            <p>This page, less the token and key, stays at <a href="\(prefix)/projects/\(project.id)/connect">Connect your app</a>. \
            Then create a link on the <a href="\(prefix)/projects/\(project.id)/links">links page</a>, \
            and open it on a phone with the app installed from a test build. \
            Domains and app ids (for universal links and app links) are in <a href="\(prefix)/projects/\(project.id)/settings">Settings</a>.</p>
            """
        return DashboardPage.render(
            title: "Connect your app · \(project.name)", prefix: prefix, viewer: viewer,
            projectNav: (project.id, project.name, "Connect"), body: body, status: .created)
    }
}
