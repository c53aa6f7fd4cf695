import App
import Attribution
import Cryptography
import Dispatch
import Foundation
import HTTP
import StoreContracts

/// Who is looking at a dashboard page, and what they may do there.
struct DashboardViewer: Sendable {
    let session: DashboardSession
    /// The cookie's token (sign-out revokes it).
    let token: String

    var isServerAdmin: Bool { session.user == nil }
    var name: String { session.user?.email ?? "admin key" }

    func canRead(projectID: String) -> Bool { session.user.map { $0.projectID == projectID } ?? true }
    func canChange(projectID: String) -> Bool { canRead(projectID: projectID) && (session.user?.role ?? .admin) == .admin }
}

/// Sessions, CSRF and roles for dashboard routes. A page without a session redirects to sign-in;
/// every POST needs its session's CSRF token in the form and, when the browser sends `Origin`,
/// this server's own.
struct DashboardAuth: Sendable {
    static let cookieName = "attributiond_session"
    let services: Services
    var prefix: String { services.dashboard.prefix }

    func page(_ handler: @escaping @Sendable (HTTPRequest, DashboardViewer) throws -> HTTPResponse) -> RouteHandler {
        .sync { request in
            guard let viewer = try viewer(of: request) else { return DashboardPage.redirect(to: prefix + "/sign-in") }
            do {
                return try handler(request, viewer)
            } catch let problem as PageProblem {
                return DashboardPage.message(status: .unprocessableContent, title: problem.title, text: problem.text, prefix: prefix, viewer: viewer)
            }
        }
    }

    /// A form post: the viewer, and the form's fields once its CSRF token checked out.
    func form(_ handler: @escaping @Sendable (HTTPRequest, DashboardViewer, DashboardForm) throws -> HTTPResponse) -> RouteHandler {
        .sync { request in
            guard let viewer = try viewer(of: request) else { return DashboardPage.redirect(to: prefix + "/sign-in") }
            let form = try DashboardForm(request)
            guard Self.sameOrigin(request), let presented = form["csrf"],
                Secrets.constantTimeEquals(Array(presented.utf8), Array(viewer.session.csrfToken.utf8))
            else {
                return DashboardPage.message(
                    status: .forbidden, title: "Refused",
                    text: "This form was not sent from this dashboard (its CSRF token is missing or stale). Reload the page and try again.",
                    prefix: prefix)
            }
            return try handler(request, viewer, form)
        }
    }

    /// A page of the project the path names, for its admins (a viewer gets 403).
    func adminPage(_ handler: @escaping @Sendable (HTTPRequest, DashboardViewer, Project) throws -> HTTPResponse) -> RouteHandler {
        page { request, viewer in
            let project = try DashboardProjects.readable(request, viewer, services)
            guard viewer.canChange(projectID: project.id) else { return refused(viewer) }
            return try handler(request, viewer, project)
        }
    }

    /// A form that changes the project the path names: its admins only (a viewer gets 403).
    func adminForm(_ handler: @escaping @Sendable (HTTPRequest, DashboardViewer, DashboardForm, Project) throws -> HTTPResponse) -> RouteHandler {
        form { request, viewer, form in
            let project = try DashboardProjects.readable(request, viewer, services)
            guard viewer.canChange(projectID: project.id) else { return refused(viewer) }
            return try handler(request, viewer, form, project)
        }
    }

    private func refused(_ viewer: DashboardViewer) -> HTTPResponse {
        DashboardPage.message(
            status: .forbidden, title: "Not allowed", text: "Your role can look at this project but not change it.",
            prefix: prefix, viewer: viewer)
    }

    func viewer(of request: HTTPRequest) throws -> DashboardViewer? {
        guard let token = Self.cookie(Self.cookieName, in: request), token.utf8.count <= 64,
            let session = try services.app.dashboard.session(token: token)
        else { return nil }
        return DashboardViewer(session: session, token: token)
    }

    /// The cookie that starts a session, scoped to the dashboard's prefix; `Secure` when the
    /// request came over HTTPS (this server's TLS, or a trusted proxy's `X-Forwarded-Proto`).
    func sessionCookie(_ token: String, for request: HTTPRequest) -> String {
        "\(Self.cookieName)=\(token); Path=\(prefix); Max-Age=\(DashboardService.sessionSeconds); HttpOnly; SameSite=Lax"
            + secure(request)
    }

    func clearedCookie(for request: HTTPRequest) -> String {
        "\(Self.cookieName)=; Path=\(prefix); Max-Age=0; HttpOnly; SameSite=Lax" + secure(request)
    }

    func secure(_ request: HTTPRequest) -> String {
        services.clientIP.scheme(of: request) == "https" ? "; Secure" : ""
    }

    /// A form may come from this server's pages only: when `Origin` is sent, its host must be the
    /// request's `Host`.
    static func sameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.headers["Origin"] else { return true }
        guard let host = request.headers["Host"], let scheme = origin.range(of: "://") else { return false }
        return origin[scheme.upperBound...].lowercased() == host.lowercased()
    }

    static func cookie(_ name: String, in request: HTTPRequest) -> String? {
        for header in request.headers where header.name.equalsIgnoringASCIICase("Cookie") {
            for pair in header.value.split(separator: ";") {
                let trimmed = pair.drop(while: { $0 == " " })
                guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == name else { continue }
                return String(trimmed[trimmed.index(after: equals)...])
            }
        }
        return nil
    }

    /// Checks a sign-in's budget for the client (an IPv6 one by its /64): a wait in seconds when
    /// it is spent. Admin-key attempts spend the admin API's own budget: one budget for the key,
    /// whichever door it is tried at.
    func signInBlocked(_ request: HTTPRequest, withAdminKey: Bool, consume: Bool) -> Double? {
        let client = services.clientIP.clientAddress(of: request)?.clientKey ?? .unknown
        let budget = withAdminKey ? services.adminAuthFailures : services.dashboardSignInFailures
        return budget.retryAfter(client: client, now: DispatchTime.now().uptimeNanoseconds, consume: consume)
    }

    /// Gives back the token a sign-in that succeeded took.
    func refundSignIn(_ request: HTTPRequest, withAdminKey: Bool) {
        let client = services.clientIP.clientAddress(of: request)?.clientKey ?? .unknown
        (withAdminKey ? services.adminAuthFailures : services.dashboardSignInFailures).refund(client: client)
    }
}

/// An `application/x-www-form-urlencoded` body.
struct DashboardForm: Sendable {
    let fields: [(name: String, value: String)]
    /// Files of a `multipart/form-data` form, by field name (an import's CSV).
    var files: [String: [UInt8]] = [:]

    init(_ request: HTTPRequest) throws {
        if let boundary = MultipartForm.boundary(of: request.headers["Content-Type"]) {
            do {
                (fields, files) = try MultipartForm.parse(request.body, boundary: boundary)
            } catch {
                throw HTTPError(.badRequest, code: "bad_form", message: "the form's multipart body cannot be read")
            }
            return
        }
        guard request.body.count <= 64 * 1024 else {
            throw HTTPError(.contentTooLarge, code: "too_large", message: "a dashboard form is at most 64 KB")
        }
        fields = HTTPRequest.queryItems(of: Substring(decoding: request.body, as: UTF8.self))
    }

    subscript(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// The field trimmed, nil when empty.
    func text(_ name: String) -> String? {
        guard let value = self[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }
}
