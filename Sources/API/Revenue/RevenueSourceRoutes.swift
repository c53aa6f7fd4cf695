import App
import Attribution
import HTTP
import JSON
import StoreContracts

/// `/admin/v1/projects/{id}/revenue-sources/{app-store|google-play|revenuecat}` (docs/revenue.md):
/// a project's connection to a source of store-verified revenue, its secrets shown masked.
enum RevenueSourceRoutes {
    /// The body's keys that are secrets, by source; every other known key is a setting.
    static let secretKeys: Set<String> = ["authorization", "service_account", "push_secret"]
    static let knownKeys: [RevenueSource: Set<String>] = [
        .appStore: ["bundle_id"], .googlePlay: ["package_name", "service_account", "push_secret", "push_audience", "push_service_account"],
        .revenueCat: ["authorization"],
    ]

    /// `PUT …/revenue-sources/:source` with the source's fields as one JSON object (a Google
    /// service account may be given as its JSON object, as Google hands it out).
    static func save(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let source = try source(of: request)
            let body = try JSONFields(request, known: knownKeys[source] ?? [])
            var settings: [String: String] = [:]
            var secrets: [String: String] = [:]
            for key in knownKeys[source] ?? [] {
                let value: String?
                if key == "service_account", case .object? = body.fields[key] {
                    value = try body.json(key)
                } else {
                    value = try body.string(key, maxLength: key == "service_account" ? 16_384 : 1024)
                }
                guard let value else { continue }
                if secretKeys.contains(key) { secrets[key] = value } else { settings[key] = value }
            }
            let saved = try services.app.storeRevenue.save(project: project, source: source, settings: settings, secrets: secrets)
            return .json(bytes: shown(saved, base: LinkURLs.base(for: request, services: services)).serialized())
        }
    }

    /// `GET …/revenue-sources/:source`
    static func show(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            guard let connection = try services.app.storeRevenue.connection(project: project, source: try source(of: request)) else {
                throw HTTPError.notFound("no such revenue source for this project")
            }
            return .json(bytes: shown(connection, base: LinkURLs.base(for: request, services: services)).serialized())
        }
    }

    /// `GET …/revenue-sources`
    static func list(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let base = LinkURLs.base(for: request, services: services)
            let shownSources = try services.app.storeRevenue.connections(project: project).map { shown($0, base: base) }
            return .json(bytes: JSONValue.object(["revenue_sources": .array(shownSources)]).serialized())
        }
    }

    /// `DELETE …/revenue-sources/:source`
    static func delete(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            guard try services.app.storeRevenue.delete(project: project, source: try source(of: request)) else {
                throw HTTPError.notFound("no such revenue source for this project")
            }
            return HTTPResponse(status: .noContent)
        }
    }

    static func source(of request: HTTPRequest) throws -> RevenueSource {
        let name = try request.parameter("source")
        guard let source = RevenueSource(rawValue: name) else {
            throw HTTPError.notFound("no revenue source '\(name.prefix(32))': app-store, google-play or revenuecat")
        }
        return source
    }

    /// The connection as the API shows it: settings as stored, secrets masked, and the URL the
    /// store is to send its notifications to.
    static func shown(_ connection: RevenueSourceConnection, base: String) -> JSONValue {
        var object: [String: JSONValue] = [
            "source": .string(connection.source.rawValue),
            "notification_url": .string("\(base)/notifications/\(connection.source.rawValue)/\(connection.projectID)"),
            "updated_at": .string(connection.updatedAt.iso8601),
        ]
        for (key, value) in connection.settings { object[key] = .string(value) }
        for (key, value) in connection.secrets { object[key] = .string(AdPlatformService.masked(value)) }
        return .object(object)
    }
}
