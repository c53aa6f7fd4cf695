import App
import Attribution
import HTTP
import JSON
import StoreContracts

/// `/admin/v1/projects/{id}/cost-sources/{google-ads|meta}` (docs/cost.md, "Pulled from the
/// networks"): a project's connection to a network's reporting API, secrets shown masked, its
/// last pull; `POST …/pull` pulls now.
enum CostSourceRoutes {
    static func save(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let network = try network(of: request)
            let body = try JSONFields(request, known: Set(network.settingKeys + network.secretKeys + ["backfill_days"]))
            var settings: [String: String] = [:]
            var secrets: [String: String] = [:]
            for key in network.settingKeys { settings[key] = try body.string(key, maxLength: 64) }
            for key in network.secretKeys { secrets[key] = try body.string(key, maxLength: 2048) }
            let saved = try services.app.costPulls.save(
                project: project, network: network, settings: settings, secrets: secrets, backfillDays: try body.integer("backfill_days"))
            return .json(bytes: shown(saved).serialized())
        }
    }

    static func show(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            guard let connection = try services.app.costPulls.connection(project: project, network: try network(of: request)) else {
                throw HTTPError.notFound("no such cost source for this project")
            }
            return .json(bytes: shown(connection).serialized())
        }
    }

    static func list(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { _, project in
            .json(bytes: JSONValue.object(["cost_sources": .array(try services.app.costPulls.connections(project: project).map(shown))]).serialized())
        }
    }

    static func delete(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            guard try services.app.costPulls.delete(project: project, network: try network(of: request)) else {
                throw HTTPError.notFound("no such cost source for this project")
            }
            return HTTPResponse(status: .noContent)
        }
    }

    /// `POST …/cost-sources/:network/pull`: pulls now (unless another node is); answers with the
    /// pull's result once it is stored.
    static func pull(_ services: Services) -> RouteHandler {
        .pooled { request, respond in
            do {
                let project = try services.app.projects.existing(id: try request.parameter("id"))
                let network = try network(of: request)
                guard try services.app.costPulls.connection(project: project, network: network) != nil else {
                    throw HTTPError.notFound("no such cost source for this project")
                }
                services.app.costPulls.pull(project: project, network: network) { result in
                    respond(result.map { .json(bytes: JSONValue.object(["result": .string($0)]).serialized()) })
                }
            } catch {
                respond(.failure(error))
            }
        }
    }

    static func network(of request: HTTPRequest) throws -> CostNetwork {
        let name = try request.parameter("network")
        guard let network = CostNetwork(rawValue: name) else {
            throw HTTPError.notFound("no cost source '\(name.prefix(32))': google-ads, meta, tiktok or apple-ads")
        }
        return network
    }

    static func shown(_ connection: CostSourceConnection) -> JSONValue {
        var object: [String: JSONValue] = [
            "network": .string(connection.network.rawValue), "backfill_days": .number(Double(connection.backfillDays)),
            "next_pull_at": .string(connection.nextPullAt.iso8601), "last_pulled_at": connection.lastPulledAt.map { .string($0.iso8601) } ?? .null,
            "last_result": connection.lastResult.map(JSONValue.string) ?? .null,
        ]
        for (key, value) in connection.settings { object[key] = .string(value) }
        for (key, value) in connection.secrets { object[key] = .string(AdPlatformService.masked(value)) }
        return .object(object)
    }
}
