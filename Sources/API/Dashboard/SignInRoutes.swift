import App
import Attribution
import Cryptography
import HTTP
import StoreContracts

/// Signing in (a project user's email and password, or the server's admin key) and out. Failed
/// attempts spend the address's budget; a spent budget refuses every attempt, right ones too,
/// until it refills.
enum SignInRoutes {
    static func form(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return .sync { request in
            if try auth.viewer(of: request) != nil { return DashboardPage.redirect(to: auth.prefix + "/") }
            return page(auth, error: nil, email: "")
        }
    }

    static func signIn(_ services: Services) -> RouteHandler {
        let auth = DashboardAuth(services: services)
        return .sync { request in
            let form = try DashboardForm(request)
            guard DashboardAuth.sameOrigin(request) else {
                return DashboardPage.message(
                    status: .forbidden, title: "Refused", text: "Sign in from this dashboard's own page.",
                    prefix: auth.prefix)
            }
            let withAdminKey = form["admin_key"].map { !$0.isEmpty } ?? false
            // The attempt takes its token before the password hash, and a right one gives it back:
            // spending after the hash let concurrent guesses all pass the check first.
            if let wait = auth.signInBlocked(request, withAdminKey: withAdminKey, consume: true) { return tooMany(auth, wait) }
            var user: DashboardUser?
            var signedIn = false
            if withAdminKey, let key = form["admin_key"] {
                signedIn = services.adminKeyHash.map { Secrets.matches(key, hash: $0) } ?? false
            } else if let email = form.text("email"), let password = form["password"], password.utf8.count <= 1024 {
                let opened = try services.app.dashboard.authenticate(email: email, password: password)
                if let chosen = form.text("project") {
                    user = opened.first { $0.projectID == chosen }
                } else if opened.count > 1 {
                    // One email, several projects that this password opens: the person says which.
                    let projects = try opened.compactMap { try services.app.projects.find(id: $0.projectID) }
                    auth.refundSignIn(request, withAdminKey: withAdminKey)
                    return page(auth, error: nil, email: email, choosing: projects.map { ($0.id, $0.name) })
                } else {
                    user = opened.first
                }
                signedIn = user != nil
            }
            guard signedIn else {
                return page(
                    auth, error: "That email and password, or admin key, did not sign you in.", email: form.text("email") ?? "",
                    status: .unauthorized)
            }
            auth.refundSignIn(request, withAdminKey: withAdminKey)
            let (token, _) = try services.app.dashboard.startSession(for: user)
            let home = user.map { "\(auth.prefix)/projects/\($0.projectID)" } ?? auth.prefix + "/"
            return DashboardPage.redirect(to: home, cookie: auth.sessionCookie(token, for: request))
        }
    }

    static func signOut(_ services: Services) -> SignedInForm {
        let auth = DashboardAuth(services: services)
        return { request, viewer, _ in
            try services.app.dashboard.endSession(token: viewer.token)
            return DashboardPage.redirect(to: auth.prefix + "/sign-in", cookie: auth.clearedCookie(for: request))
        }
    }

    private static func tooMany(_ auth: DashboardAuth, _ wait: Double) -> HTTPResponse {
        let seconds = retryAfterSeconds(wait)
        var response = page(
            auth, error: "Too many failed sign-ins from this address; try again in \(seconds) s.", email: "",
            status: .tooManyRequests)
        response.headers.add("Retry-After", String(seconds))
        return response
    }

    /// Where the person signing in finds the admin key.
    static func adminKeyHint(_ origin: ServerAdminKey.Origin) -> HTML {
        switch origin {
        case .madeNow, .madeBefore:
            "The server made this key at its first start and printed it once in its output (the console, or its log). "
                + "To replace it, start the server with <code>ATTRIBUTIOND_ADMIN_KEY</code> set."
        case .configured, .none:
            "The key the server was started with: <code>ATTRIBUTIOND_ADMIN_KEY</code>, or <code>admin_key</code> in its configuration file."
        }
    }

    /// - Parameter choosing: the projects one email's password opened, for the person to pick from
    ///   (the password is asked again, never carried in the page).
    private static func page(
        _ auth: DashboardAuth, error: String?, email: String, status: HTTPStatus = .ok,
        choosing projects: [(id: String, name: String)] = []
    ) -> HTTPResponse {
        var message: HTML = error.map { #"<p class="error" role="alert">\#($0)</p>"# } ?? ""
        var projectField: HTML = ""
        if !projects.isEmpty {
            message += #"<p role="status">This email is a user of several projects. Choose one, and enter the password again.</p>"#
            let options = projects.map { project -> HTML in #"<option value="\#(project.id)">\#(project.name)</option>"# }
            projectField = #"<label>Project<select name="project" required>\#(options)</select></label>"#
        }
        let adminKeyAvailable = auth.services.adminKeyHash != nil
        let adminKeyForm: HTML =
            adminKeyAvailable
            ? """
            <form class="stack" method="post" action="\(auth.prefix)/sign-in"><h2>Server admin</h2>\
            <label>Admin key<input name="admin_key" type="password" autocomplete="off" required></label>\
            <button>Sign in with the admin key</button><p class="muted">\(adminKeyHint(auth.services.adminKeyOrigin))</p></form>
            """
            : """
            <div class="stack"><h2>Server admin</h2><p class="muted">This server has no admin key. Start it with \
            <code>ATTRIBUTIOND_ADMIN_KEY</code> set (make one with <code>openssl rand -base64 32</code>) to sign in here \
            and use the admin API.</p></div>
            """
        let body: HTML = """
            <h1>Sign in</h1>\(message)<div class="grid2">\
            <form class="stack" method="post" action="\(auth.prefix)/sign-in"><h2>Project user</h2>\
            <label>Email<input name="email" type="email" autocomplete="username" value="\(email)" required></label>\
            \(projectField)\
            <label>Password<input name="password" type="password" autocomplete="current-password" required></label>\
            <button>Sign in</button></form>\
            \(adminKeyForm)</div>
            """
        return DashboardPage.render(title: "Sign in", prefix: auth.prefix, viewer: nil, body: body, status: status)
    }
}
