import App
import Attribution
import Foundation
import HTTP
import JSON

/// `/admin/v1/projects/{id}/domains`: a project's own link domains, and `GET /tls/allowed`, the
/// question a TLS-terminating proxy asks before getting a certificate for a name (Caddy's
/// on-demand TLS `ask`).
enum DomainRoutes {
    struct Payload: Decodable {
        let domain: String

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(["domain"])
            let container = try decoder.container(keyedBy: AnyCodingKey.self)
            guard let domain = try container.decodeIfPresent(String.self, forKey: AnyCodingKey(stringValue: "domain")) else {
                throw HTTPError.invalidField("domain", "is required")
            }
            self.domain = domain
        }
    }

    struct Body: Encodable {
        let id: String
        let domain: String
        /// Served over HTTP as soon as it is added; HTTPS is the front proxy's (`/tls/allowed`).
        let status = "active"
        let created_at: String
        let well_known: [String]

        init(_ domain: ProjectDomain) {
            id = domain.id
            self.domain = domain.domain
            created_at = domain.createdAt.iso8601
            well_known = ["https://\(domain.domain)/.well-known/apple-app-site-association", "https://\(domain.domain)/.well-known/assetlinks.json"]
        }
    }

    /// `POST /admin/v1/projects/:id/domains`
    static func add(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let payload = try request.decodeJSON(Payload.self)
            let domain = try services.app.domains.add(projectID: project.id, name: payload.domain)
            return try .json(Body(domain), status: .created, encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/domains`
    static func list(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { _, project in
            try .json(["domains": try services.app.domains.list(projectID: project.id).map(Body.init)], encoder: JSONCoders.encoder)
        }
    }

    /// `DELETE /admin/v1/projects/:id/domains/:domainId`
    static func remove(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            try services.app.domains.remove(id: try request.parameter("domainId"), projectID: project.id)
            return HTTPResponse(status: .noContent)
        }
    }

    /// `GET /tls/allowed?domain=<name>`: 200 for a project domain, 404 for any other name.
    static func allowed(_ services: Services) -> RouteHandler {
        .sync { request in
            guard let name = request.queryValue("domain") else { throw HTTPError.invalidField("domain", "is required") }
            guard case .success(let host) = DomainName.normalized(name), try services.app.domains.claim(ofHost: host) != nil else {
                throw HTTPError.notFound("'\(name.prefix(characters: 253))' is not a project domain")
            }
            return try .json(["domain": host], encoder: JSONCoders.encoder)
        }
    }
}
