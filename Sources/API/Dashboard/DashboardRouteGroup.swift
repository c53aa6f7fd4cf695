import App
import Attribution
import HTTP

/// What a dashboard route asks of its request before its handler runs, named in the route
/// table beside the path (`DashboardRoutes`), so no page can be added without it.
enum DashboardAccess: Sendable, Equatable {
    /// No session needed (the sign-in form, the stylesheet).
    case anyone
    /// A session; `/sign-in` otherwise.
    case signedIn
    /// A session that may read the project `:id` names; 404 for another project's id.
    case projectReader
    /// A session that may change that project; 403 for a viewer.
    case projectAdmin
}

/// Handlers by what the route table resolved for them: the viewer, the form (its CSRF token
/// checked), the project of the path.
typealias SignedInPage = @Sendable (HTTPRequest, DashboardViewer) throws -> HTTPResponse
typealias SignedInForm = @Sendable (HTTPRequest, DashboardViewer, DashboardForm) throws -> HTTPResponse
typealias ProjectPage = @Sendable (HTTPRequest, DashboardViewer, Project) throws -> HTTPResponse
typealias ProjectForm = @Sendable (HTTPRequest, DashboardViewer, DashboardForm, Project) throws -> HTTPResponse
typealias PeriodPage = @Sendable (HTTPRequest, DashboardViewer, DashboardPeriodPage) throws -> HTTPResponse

/// One route of the dashboard: its path under the prefix, the access it needs, its handler
/// wrapped in that access.
struct DashboardRoute: Sendable {
    let method: HTTPMethod
    let path: String
    let access: DashboardAccess
    let handler: RouteHandler
}

/// The dashboard's route table as it is built: each method says the access its routes need and
/// takes a handler of the matching shape.
struct DashboardRouteGroup {
    let auth: DashboardAuth
    private(set) var routes: [DashboardRoute] = []

    init(services: Services) { auth = DashboardAuth(services: services) }

    /// A route that needs no session.
    mutating func open(_ method: HTTPMethod, _ path: String, _ handler: RouteHandler) {
        routes.append(DashboardRoute(method: method, path: path, access: .anyone, handler: handler))
    }

    mutating func page(_ path: String, _ handler: @escaping SignedInPage) {
        routes.append(DashboardRoute(method: .get, path: path, access: .signedIn, handler: auth.page(handler)))
    }

    mutating func form(_ path: String, _ handler: @escaping SignedInForm) {
        routes.append(DashboardRoute(method: .post, path: path, access: .signedIn, handler: auth.form(handler)))
    }

    /// `GET` of a project's page, for anyone who may read the project.
    mutating func projectPage(_ path: String, _ handler: @escaping ProjectPage) {
        let auth = auth
        routes.append(
            DashboardRoute(
                method: .get, path: path, access: .projectReader,
                handler: auth.page { request, viewer in
                    try handler(request, viewer, try DashboardProjects.readable(request, viewer, auth.services))
                }))
    }

    /// `GET` of a project's page over a period (`?range=…`), for anyone who may read the project.
    mutating func periodPage(
        _ path: String, rangeItems: @escaping @Sendable ([(String, String)]) -> [(String, String)] = { $0 },
        _ handler: @escaping PeriodPage
    ) {
        routes.append(DashboardRoute(method: .get, path: path, access: .projectReader, handler: auth.periodPage(rangeItems: rangeItems, handler)))
    }

    /// A form posted about a project by anyone who may read it (what they see, not the project).
    mutating func projectForm(_ path: String, _ handler: @escaping ProjectForm) {
        let auth = auth
        routes.append(
            DashboardRoute(
                method: .post, path: path, access: .projectReader,
                handler: auth.form { request, viewer, form in
                    try handler(request, viewer, form, try DashboardProjects.readable(request, viewer, auth.services))
                }))
    }

    /// `GET` of a page only the project's admins see.
    mutating func adminPage(_ path: String, _ handler: @escaping ProjectPage) {
        routes.append(DashboardRoute(method: .get, path: path, access: .projectAdmin, handler: auth.adminPage(handler)))
    }

    /// A form that changes the project: its admins only.
    mutating func adminForm(_ path: String, _ handler: @escaping ProjectForm) {
        routes.append(DashboardRoute(method: .post, path: path, access: .projectAdmin, handler: auth.adminForm(handler)))
    }
}
