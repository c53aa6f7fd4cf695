import App
import Attribution
import HTTP
import JSON
import StoreContracts

/// `/admin/v1/projects/{id}/apple-ads`: the project's Apple Ads Campaign Management API
/// credentials, with which the names of campaigns, ad groups and keywords are fetched (optional:
/// ids work without them). The private key is never shown again.
enum AppleAdsRoutes {
    /// `PUT /admin/v1/projects/:id/apple-ads`
    static func setCredentials(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            let body = try JSONFields(request, known: ["client_id", "team_id", "key_id", "org_id", "private_key"])
            let credentials = AppleAdsCredentials(
                clientID: try body.requiredString("client_id", maxLength: 128), teamID: try body.requiredString("team_id", maxLength: 128),
                keyID: try body.requiredString("key_id", maxLength: 128),
                orgID: try body.identifier("org_id") ?? { throw HTTPError.badRequest("missing required field 'org_id'", code: "missing_field") }(),
                privateKey: try body.requiredString("private_key", maxLength: 8192))
            try services.app.appleAds.setCredentials(credentials, projectID: project.id, at: services.clock.now())
            return .json(bytes: shown(credentials).serialized())
        }
    }

    /// `GET /admin/v1/projects/:id/apple-ads`
    static func showCredentials(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            guard let credentials = try services.app.appleAds.credentials(projectID: project.id) else {
                return .json(bytes: JSONValue.object(["configured": .bool(false)]).serialized())
            }
            return .json(bytes: shown(credentials).serialized())
        }
    }

    /// `DELETE /admin/v1/projects/:id/apple-ads`
    static func deleteCredentials(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            try services.app.appleAds.deleteCredentials(projectID: project.id)
            return HTTPResponse(status: .noContent)
        }
    }

    private static func shown(_ credentials: AppleAdsCredentials) -> JSONValue {
        .object([
            "configured": .bool(true), "client_id": .string(credentials.clientID), "team_id": .string(credentials.teamID),
            "key_id": .string(credentials.keyID), "org_id": .string(credentials.orgID),
        ])
    }
}
