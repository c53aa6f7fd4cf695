import App
import Attribution
import Foundation
import HTTP
import JSON
import StoreContracts

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
        /// The certificate the server got for it (`acme`): `issued`, `failing` (none valid yet, and
        /// the last attempt failed), or `pending`.
        let certificate_status: String
        let certificate_not_after: String?
        let certificate_failures: Int
        let certificate_error: String?
        let certificate_retry_at: String?

        init(_ domain: ProjectDomain, certificate: DomainCertificateRecord? = nil, now: Timestamp = Timestamp(milliseconds: 0)) {
            let valid = certificate?.notAfter.map { $0 * 1000 > now.milliseconds } ?? false
            certificate_status = valid ? "issued" : (certificate?.failures ?? 0) > 0 ? "failing" : "pending"
            certificate_not_after = certificate?.notAfter.map { Timestamp(milliseconds: $0 * 1000).iso8601 }
            certificate_failures = certificate?.failures ?? 0
            certificate_error = certificate?.lastError
            certificate_retry_at = (certificate?.failures ?? 0) > 0 ? certificate?.nextAttemptAt.iso8601 : nil
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
            let certificates = try services.app.domains.certificates()
            let now = services.clock.now()
            let domains = try services.app.domains.list(projectID: project.id).map { Body($0, certificate: certificates[$0.domain], now: now) }
            return try .json(["domains": domains], encoder: JSONCoders.encoder)
        }
    }

    /// `DELETE /admin/v1/projects/:id/domains/:domainId`
    static func remove(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let force = try request.flag("force")
            try services.app.domains.remove(id: try request.parameter("domainId"), projectID: project.id, force: force)
            return HTTPResponse(status: .noContent)
        }
    }

    /// `DELETE /admin/v1/projects/:id/domains/:domainId/long-links`: `{"deleted": n}`.
    static func clearLongLinks(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let deleted = try services.app.domains.clearLongLinks(id: try request.parameter("domainId"), projectID: project.id)
            return .json(bytes: JSONValue.object(["deleted": .number(Double(deleted))]).serialized())
        }
    }

    /// `GET /.well-known/acme-challenge/:token`: the key authorization an ACME CA fetches to
    /// see that a domain reaches this server (any node answers: challenges are in the store).
    static func acmeChallenge(_ services: Services) -> RouteHandler {
        .sync { request in
            guard let answer = try services.app.domains.challengeAnswer(token: try request.parameter("token")) else {
                throw HTTPError.notFound("no open challenge with this token")
            }
            return HTTPResponse(
                status: .ok, headers: ["Content-Type": "application/octet-stream", "Cache-Control": "no-store"], body: Array(answer.utf8))
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
