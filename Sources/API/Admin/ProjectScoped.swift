import App
import Attribution
import HTTP
import StoreContracts

/// Routes under `/admin/v1/projects/:id`: the handler is given the project the path names, read
/// once here (404 naming it when there is none) rather than looked up again in every handler.
enum ProjectScoped {
    static func sync(_ services: Services, _ handle: @escaping @Sendable (HTTPRequest, Project) throws -> HTTPResponse) -> RouteHandler {
        let projects = services.app.projects
        return .sync { request in try handle(request, try projects.existing(id: try request.parameter("id"))) }
    }
}
