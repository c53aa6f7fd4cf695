import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// `/admin/v1/*` (docs/admin-api.md): projects, API keys, templates, stats, GDPR erasure.
enum AdminRoutes {
    /// `POST /admin/v1/projects`
    static func createProject(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return .sync { request in
            let creation = try request.decodeJSON(ProjectCreation.self)
            let created = try projects.create(name: creation.name, settings: creation.settings, testMode: creation.testMode)
            return try .json(
                ProjectBody(created.project, token: created.token, apiKey: created.apiKey.key), status: .created,
                encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects`
    static func listProjects(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return .sync { _ in
            try .json(try projects.list().map { ProjectBody($0) }, encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id`
    static func showProject(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { _, project in
            try .json(ProjectBody(project), encoder: JSONCoders.encoder)
        }
    }

    /// `PATCH /admin/v1/projects/:id`
    static func updateProject(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return ProjectScoped.sync(services) { request, found in
            var project = found
            let update = try request.decodeJSON(ProjectUpdate.self)
            if let testMode = update.testMode, testMode != project.testMode {
                throw HTTPError.conflict("test_mode is chosen when a project is created and cannot change; create a new project instead")
            }
            if let name = update.name { project.name = name }
            project.settings = try update.settings.applied(to: project.settings)
            return try .json(ProjectBody(try projects.update(project)), encoder: JSONCoders.encoder)
        }
    }

    /// `POST /admin/v1/projects/:id/api-keys`
    static func issueAPIKey(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return ProjectScoped.sync(services) { request, project in
            let issued = try projects.issueAPIKey(projectID: project.id, format: try keyFormat(of: request))
            return try .json(
                APIKeyBody(
                    id: issued.id, key: issued.key, prefix: issued.prefix,
                    created_at: services.clock.now().iso8601, revoked_at: nil),
                status: .created, encoder: JSONCoders.encoder)
        }
    }

    /// `{"format": "standard" | "warplink" | "branch", "mode": "live" | "test"}`, every key optional; an
    /// empty body is a standard key.
    static func keyFormat(of request: HTTPRequest) throws -> APIKeyFormat {
        guard !request.body.isEmpty else { return .standard }
        let body = try JSONFields(request, known: ["format", "mode"])
        let mode = try body.string("mode", maxLength: 16)
        switch try body.string("format", maxLength: 16) ?? "standard" {
        case "standard":
            guard mode == nil else { throw HTTPError.invalidField("mode", "applies only to formats 'warplink' and 'branch'") }
            return .standard
        case let format where format == "warplink" || format == "branch":
            guard mode == nil || mode == "live" || mode == "test" else { throw HTTPError.invalidField("mode", "must be 'live' or 'test'") }
            return format == "branch" ? .branch(test: mode == "test") : .warplink(test: mode == "test")
        default: throw HTTPError.invalidField("format", "must be 'standard', 'warplink' or 'branch'")
        }
    }

    /// `GET /admin/v1/projects/:id/api-keys`
    static func listAPIKeys(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return ProjectScoped.sync(services) { request, project in
            let keys = try projects.apiKeys(projectID: project.id).map {
                APIKeyBody(id: $0.id, key: nil, prefix: $0.prefix, created_at: $0.createdAt.iso8601, revoked_at: $0.revokedAt?.iso8601)
            }
            return try .json(keys, encoder: JSONCoders.encoder)
        }
    }

    /// `DELETE /admin/v1/projects/:id/api-keys/:keyId`
    static func revokeAPIKey(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return ProjectScoped.sync(services) { request, project in
            let keyID = try request.parameter("keyId")
            try projects.revokeAPIKey(projectID: project.id, keyID: keyID)
            return HTTPResponse(status: .noContent)
        }
    }

    /// `POST /admin/v1/projects/:id/token` `{"grace_hours": 168}` (optional; 0 to 720): a new
    /// project token, shown only now; the old one keeps working for the grace period.
    static func rotateToken(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return ProjectScoped.sync(services) { request, project in
            var grace = 168
            if !request.body.isEmpty, let hours = try JSONFields(request, known: ["grace_hours"]).number("grace_hours") {
                guard hours == hours.rounded(), hours >= 0, hours <= Double(ProjectService.maximumTokenGraceHours) else {
                    throw HTTPError.invalidField("grace_hours", "must be a whole number of hours from 0 to \(ProjectService.maximumTokenGraceHours)")
                }
                grace = Int(hours)
            }
            let (token, until) = try projects.rotateToken(projectID: project.id, graceHours: grace)
            var body: [String: JSONValue] = ["token": .string(token), "previous_token_valid_until": until.map { .string($0.iso8601) } ?? .null]
            body["project_id"] = .string(project.id)
            return .json(bytes: JSONValue.object(body).serialized())
        }
    }

    /// `DELETE /admin/v1/projects/:id`: the project and everything stored for it (204).
    static func deleteProject(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return ProjectScoped.sync(services) { request, project in
            try projects.delete(projectID: project.id)
            return HTTPResponse(status: .noContent)
        }
    }

    /// `POST /admin/v1/projects/:id/signing-keys`
    static func createSigningKey(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return ProjectScoped.sync(services) { request, project in
            if !request.body.isEmpty { _ = try JSONFields(request, known: []) }  // it takes none
            let key = try projects.createSigningKey(projectID: project.id)
            return try .json(["key_id": key.keyID, "secret": key.secret], status: .created, encoder: JSONCoders.encoder)
        }
    }

    /// `DELETE /admin/v1/projects/:id/signing-keys/:keyId`
    static func revokeSigningKey(_ services: Services) -> RouteHandler {
        let projects = services.app.projects
        return ProjectScoped.sync(services) { request, project in
            let keyID = try request.parameter("keyId")
            try projects.revokeSigningKey(projectID: project.id, keyID: keyID)
            return HTTPResponse(status: .noContent)
        }
    }

    /// `POST /admin/v1/projects/:id/templates`
    static func createTemplate(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            let payload = try request.decodeJSON(TemplatePayload.self)
            let template = payload.template(projectID: project.id, now: services.now(for: project))
            try throwIfInvalid(template.validate())
            return try .json(TemplateBody(try services.app.links.createTemplate(template)), status: .created, encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/templates`
    static func listTemplates(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            return try .json(try services.app.links.templates(projectID: project.id).map(TemplateBody.init), encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/stats`
    static func stats(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            let (since, until) = try TimeParameter.period(of: request, now: services.now(for: project))
            let stats = try services.app.reports.stats(project: project, since: since, until: until)
            return try .json(StatsBody(projectID: project.id, since: since, until: until, stats: stats), encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/traffic-quality?since=&until=`: rejections and flags by reason,
    /// source and campaign (docs/traffic-quality.md).
    static func trafficQuality(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            let (since, until) = try TimeParameter.period(of: request, now: services.now(for: project))
            let report = try services.app.reports.trafficQuality(project: project, since: since, until: until)
            guard case .object(var body) = report.json else { return .json(bytes: report.json.serialized()) }
            body["project_id"] = .string(project.id)
            return .json(bytes: JSONValue.object(body).serialized())
        }
    }

    /// `GET /admin/v1/projects/:id/installs/:installId/skan`
    static func installSKANValues(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            let installID = try request.parameter("installId")
            _ = try services.app.installs.existing(id: installID, project: project)
            var data: [String: JSONValue] = [:]
            if let values = try services.app.activity.conversionValues(installID: installID, project: project) {
                SKANFields.add(values, to: &data)
                data["window"] = .number(Double(values.window))
            }
            return .json(bytes: JSONValue.object(data).serialized())
        }
    }

    /// `GET /admin/v1/projects/:id/installs/:installId/explain`: how the install was matched, as
    /// recorded in its own transaction (`MatchExplanation`); `"recorded": false` for installs
    /// stored before 0.2.0.
    static func explainInstall(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            let installID = try request.parameter("installId")
            let install = try services.app.installs.existing(id: installID, project: project)
            var body: [String: JSONValue] = [
                "install_id": .string(install.id), "match_type": .string(install.match.matchType.rawValue),
                "attributed": .bool(install.match.attributed), "confidence": .number(install.match.confidence),
                "click_id": install.match.clickID.map(JSONValue.string) ?? .null,
                "rejected_reasons": .array(install.match.rejectedReasons.map { .string($0.rawValue) }),
                "quality_flags": .array(install.match.flags.map { .string($0.rawValue) }),
                "address_class": install.addressClass.map { .string($0.rawValue) } ?? .null,
            ]
            if let text = try services.app.reports.browse.explanation(installID: install.id, projectID: project.id),
                case .object(let explanation) = try JSONValueParser.parse(Array(text.utf8))
            {
                let annotations = try services.app.reports.annotations(installID: install.id, project: project)
                body.merge(annotations.applied(to: explanation)) { own, _ in own }
                body["recorded"] = .bool(true)
            } else {
                body["recorded"] = .bool(false)
            }
            body["matched_factors"] = .array(install.match.matchedFactors.map(JSONValue.string))
            // The ad platforms' claims beside our own match: which one holds the install.
            body["ad_platform_claims"] = .array(try services.app.adPlatforms.claimsShown(installID: install.id))
            return .json(bytes: JSONValue.object(body).serialized())
        }
    }

    /// `DELETE /admin/v1/projects/:id/installs/:installId`
    static func eraseInstall(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            let installID = try request.parameter("installId")
            try services.app.reports.eraseInstall(installID, project: project)
            return HTTPResponse(status: .noContent)
        }
    }

    /// `DELETE /admin/v1/projects/:id/users/:userId`
    static func eraseUser(_ services: Services) -> RouteHandler {
        return ProjectScoped.sync(services) { request, project in
            let userID = try request.parameter("userId")
            try services.app.reports.eraseUser(userID, project: project)
            return HTTPResponse(status: .noContent)
        }
    }
}

struct APIKeyBody: Encodable {
    let id: String
    let key: String?
    let prefix: String
    let created_at: String
    let revoked_at: String?
}

/// `since`/`until` query values: ISO 8601, epoch milliseconds, or a span back from now (`7d`, `24h`, `30m`).
enum TimeParameter {
    static func parse(_ text: String?, name: String, now: Timestamp) throws -> Timestamp? {
        guard let text, !text.isEmpty else { return nil }
        guard let timestamp = TimeSpecification.parse(text, now: now) else {
            throw HTTPError.invalidField(name, "expected \(TimeSpecification.expected)")
        }
        return timestamp
    }

    /// `?since=&until=`: all time until now (inclusive) unless given; `since` must come first.
    static func period(of request: HTTPRequest, now: Timestamp) throws -> (since: Timestamp, until: Timestamp) {
        let since = try parse(request.queryValue("since"), name: "since", now: now) ?? Timestamp(milliseconds: 0)
        let until = try parse(request.queryValue("until"), name: "until", now: now) ?? now.adding(seconds: 1)
        guard since < until else { throw HTTPError.invalidField("since", "must be before until") }
        return (since, until)
    }
}
