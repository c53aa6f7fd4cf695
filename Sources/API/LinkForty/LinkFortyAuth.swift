import Attribution
import HTTP
import Store

/// Which project a LinkForty request belongs to (linkforty-api.md, "Which project").
struct LinkFortyAuth: Sendable {
    let services: Services

    /// Link management: an API key is required.
    func projectRequiringKey(_ request: HTTPRequest) throws -> Project {
        guard let key = BearerToken.from(request) else {
            throw HTTPError(.unauthorized, code: "unauthorized", message: "an API key is required (Authorization: Bearer <api key>)")
        }
        guard let project = try services.projectCache.project(forAPIKey: key, repository: services.projects) else {
            throw HTTPError(.unauthorized, code: "unauthorized", message: "the API key is not valid")
        }
        return project
    }

    /// Public SDK routes: the API key's project (a wrong key is 401), else the `appToken`'s, else
    /// the configured default project, else the only project.
    func project(for request: HTTPRequest, appToken: String?) throws -> Project {
        if BearerToken.from(request) != nil { return try projectRequiringKey(request) }
        if let appToken, let project = try services.projectCache.project(forToken: appToken, repository: services.projects) { return project }
        if let name = services.defaultProject, let project = try services.projects.find(name: name) { return project }
        let projects = try services.projects.list()
        if projects.count == 1 { return projects[0] }
        throw HTTPError(.unauthorized, code: "unauthorized",
                        message: "cannot tell which project this is: send an API key (Authorization: Bearer) or configure default_project")
    }
}
