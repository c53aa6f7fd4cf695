import App
import Attribution
import HTTP
import StoreContracts

/// `…/projects/:id/connect`: what an app needs, at any time after the project was made — the
/// base URL, each SDK family's line (keys are issued on the settings page, shown once there),
/// and the universal-link and app-link files this server serves for the project, as they are now.
enum ConnectPage {
    static func show(_ services: Services) -> ProjectPage {
        let auth = DashboardAuth(services: services)
        return { request, viewer, project in
            let base = LinkURLs.base(for: request, services: services)
            let settingsPath = "\(auth.prefix)/projects/\(project.id)/settings"
            let settings = project.settings
            let aasa = try WellKnownRoutes.appleAppSiteAssociation(for: [project]).map { String(decoding: $0, as: UTF8.self) }
            let assetLinks = try WellKnownRoutes.assetLinks(for: [project]).map { String(decoding: $0, as: UTF8.self) }
            func row(_ label: String, _ value: String?) -> HTML {
                let shown: HTML = value.map { "<code>\($0)</code>" } ?? #"<span class="muted">not set</span>"#
                return #"<tr><th>\#(label)</th><td>\#(shown)</td></tr>"#
            }
            let body: HTML = """
                <h1>Connect your app to \(project.name)</h1>\
                <table><tbody><tr><th>Base URL</th><td><code>\(base)</code> \
                <button type="button" data-copy="\(base)" hidden>Copy</button></td></tr></tbody></table>\
                <p>API keys and the app token are shown once, when they are made: issue a key on the \
                <a href="\(settingsPath)">settings page</a> (a <code>wl_live_…</code> one for WarpLink SDKs).</p>\
                <h2>LinkForty SDKs (iOS, Android, React Native, Flutter, Expo)</h2>\
                <pre>LinkFortyConfig(baseURL: URL(string: "\(base)")!, apiKey: "YOUR_API_KEY")</pre>\
                <h2>WarpLink SDKs</h2><pre>WarpLinkOptions(apiEndpoint: "\(base)/v1")</pre>\
                <h2>Linkrunner REST clients</h2><p>Replace <code>https://api.linkrunner.io</code> by <code>\(base)</code> \
                and send the project's token.</p>\
                <h2>Universal links and app links</h2><table><tbody>\
                \(row("Apple team id", settings.iosTeamID))\(row("iOS bundle id", settings.iosBundleID))\
                \(row("Android package", settings.androidPackage))\
                \(row("Android SHA-256 fingerprints", settings.androidSHA256.isEmpty ? nil : settings.androidSHA256.joined(separator: ", ")))\
                </tbody></table><p class="muted">Set these on the <a href="\(settingsPath)">settings page</a>; this server then serves:</p>\
                <h3><code>/.well-known/apple-app-site-association</code></h3>\
                <pre>\(aasa ?? "(nothing yet: set the team id and the bundle id)")</pre>\
                <h3><code>/.well-known/assetlinks.json</code></h3>\
                <pre>\(assetLinks ?? "(nothing yet: set the package and a SHA-256 fingerprint)")</pre>\
                <p>Then create a link on the <a href="\(auth.prefix)/projects/\(project.id)/links">links page</a> \
                and open it on a phone that installs a test build: the install shows on the \
                <a href="\(auth.prefix)/projects/\(project.id)/installs">installs page</a>, with why it matched.</p>
                """
            return DashboardPage.render(
                title: "Connect your app · \(project.name)", prefix: auth.prefix, viewer: viewer,
                projectNav: (project.id, project.name, "Connect"), body: body)
        }
    }
}
