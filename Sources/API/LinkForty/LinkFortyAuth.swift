import App
import Attribution
import HTTP
import StoreContracts

/// Which project a LinkForty request belongs to (linkforty-api.md, "Which project").
struct LinkFortyAuth: Sendable {
    let services: Services

    /// Link management: an API key is required.
    func projectRequiringKey(_ request: HTTPRequest) throws -> Project {
        guard let key = BearerToken.from(request) else {
            throw HTTPError(.unauthorized, code: "unauthorized", message: "an API key is required (Authorization: Bearer <api key>)")
        }
        guard let project = try services.app.projects.project(forAPIKey: key) else {
            throw HTTPError(.unauthorized, code: "unauthorized", message: "the API key is not valid")
        }
        return project
    }

    /// An SDK write that names its project by credential alone (install reports): the API key's
    /// project (a wrong key is 401), else the `appToken`'s; without either, the configured default
    /// project, else the only project, if that project's `sdk_auth` is `open`.
    func project(for request: HTTPRequest, appToken: String?) throws -> Project {
        if let credentialed = try credentialedProject(request, appToken: appToken) { return credentialed }
        guard let project = try services.app.projects.defaultProject(named: services.defaultProject) else {
            throw HTTPError(
                .unauthorized, code: "unauthorized",
                message: "cannot tell which project this is: send an API key (Authorization: Bearer) or configure default_project")
        }
        try requireOpen(project)
        return project
    }

    /// An SDK write about an install of `ownerID` (event reports): a credential, when sent, must
    /// be that project's; without one, the project's `sdk_auth` must be `open`.
    func authorize(_ request: HTTPRequest, appToken: String?, forInstallOf ownerID: String) throws {
        if let credentialed = try credentialedProject(request, appToken: appToken) {
            guard credentialed.id == ownerID else {
                throw HTTPError(.unauthorized, code: "unauthorized", message: "the credential belongs to another project than this install")
            }
            return
        }
        guard let owner = try services.app.projects.cachedProject(id: ownerID) else {
            throw HTTPError.notFound("no project \(ownerID)")
        }
        try requireOpen(owner)
    }

    /// The project of the request's API key (a wrong key is 401) or of its `appToken`; nil when it
    /// carries neither (an unknown `appToken` counts as none: some SDKs send a placeholder).
    private func credentialedProject(_ request: HTTPRequest, appToken: String?) throws -> Project? {
        if BearerToken.from(request) != nil { return try projectRequiringKey(request) }
        guard let appToken else { return nil }
        return try services.app.projects.project(forToken: appToken)
    }

    func requireOpen(_ project: Project) throws {
        guard project.settings.sdkAuth == .open else {
            throw HTTPError(
                .unauthorized, code: "unauthorized",
                message: "project '\(project.name)' requires a credential on SDK writes (sdk_auth: required): "
                    + "send its API key (Authorization: Bearer) or its token as appToken")
        }
    }
}
