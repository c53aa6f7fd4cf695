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
        guard let project = try services.projects.project(forAPIKey: key) else {
            throw HTTPError(.unauthorized, code: "unauthorized", message: "the API key is not valid")
        }
        return project
    }
}
