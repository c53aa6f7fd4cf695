import App
import Attribution
import HTTP
import JSON
import StoreContracts

/// `/admin/v1/projects/{id}/ad-platforms/{google|meta|tiktok|snap}` (docs/ad-platforms/): a
/// project's connection to an ad platform, its credentials shown masked; a test event; and an
/// install's consent.
enum AdPlatformRoutes {
    /// `PUT /admin/v1/projects/:id/ad-platforms/:platform`
    static func save(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let platform = try platform(of: request)
            let shape = AdPlatformService.shape(of: platform)
            var known = Set(shape.settings + shape.secrets).union(["event_mapping", "enabled"])
            if platform == .google {
                known.subtract(["link_id_ios", "link_id_android"])
                known.insert("link_ids")
            }
            let body = try JSONFields(request, known: known)
            var settings: [String: String] = [:]
            var secrets: [String: String] = [:]
            for key in shape.settings where !(platform == .google && key.hasPrefix("link_id")) {
                settings[key] = try text(body, key)
            }
            for key in shape.secrets { secrets[key] = try text(body, key) }
            if platform == .google, let links = try body.object("link_ids") {
                if let unknown = links.fields.keys.sorted().first(where: { $0 != "ios" && $0 != "android" }) {
                    throw HTTPError(.unprocessableContent, code: "unknown_field", message: "unknown field 'link_ids.\(unknown.prefix(64))'")
                }
                settings["link_id_ios"] = try links.string("ios", path: "link_ids.ios", maxLength: 256)
                settings["link_id_android"] = try links.string("android", path: "link_ids.android", maxLength: 256)
            }
            let connection = try services.app.adPlatforms.save(
                projectID: project.id, platform: platform,
                AdPlatformService.Fields(
                    settings: settings, secrets: secrets, eventMapping: try mapping(body), enabled: try body.bool("enabled")))
            return .json(bytes: shown(connection).serialized())
        }
    }

    /// `GET /admin/v1/projects/:id/ad-platforms/:platform`
    static func show(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let connection = try services.app.adPlatforms.connection(projectID: project.id, platform: try platform(of: request))
            return .json(bytes: shown(connection).serialized())
        }
    }

    /// `GET /admin/v1/projects/:id/ad-platforms`
    static func list(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let connections = try services.app.adPlatforms.connections(projectID: project.id)
            return .json(bytes: JSONValue.object(["ad_platforms": .array(connections.map(shown))]).serialized())
        }
    }

    /// `DELETE /admin/v1/projects/:id/ad-platforms/:platform`
    static func delete(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            try services.app.adPlatforms.delete(projectID: project.id, platform: try platform(of: request))
            return HTTPResponse(status: .noContent)
        }
    }

    /// `POST /admin/v1/projects/:id/ad-platforms/:platform/test`: 202 with the job to watch in
    /// the deliveries list.
    static func sendTest(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let jobID = try services.app.adPlatforms.sendTestEvent(projectID: project.id, platform: try platform(of: request))
            return .json(bytes: JSONValue.object(["job_id": .string(jobID), "status": .string("pending")]).serialized(), status: .accepted)
        }
    }

    /// `PUT /admin/v1/projects/:id/installs/:installId/consent`: replaces what the user agreed to.
    static func setConsent(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let body = try JSONFields(request, known: ["eea", "ad_user_data", "ad_personalization", "tcf_string", "att_status"])
            let consent = try ConsentFields.consent(JSONFields(fields: ["consent": .object(body.fields)]), path: "") ?? Consent()
            let installID = try request.parameter("installId")
            try services.app.adPlatforms.setConsent(consent, installID: installID, projectID: project.id)
            return try consentBody(installID: installID, consent: consent, project: project)
        }
    }

    /// `GET /admin/v1/projects/:id/installs/:installId/consent`
    static func showConsent(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let installID = try request.parameter("installId")
            let stored = try services.app.adPlatforms.consent(installID: installID, projectID: project.id)
            return try consentBody(installID: installID, consent: stored.consent ?? Consent(), project: project)
        }
    }

    private static func consentBody(installID: String, consent: Consent, project: Project) throws -> HTTPResponse {
        struct Body: Encodable {
            let install_id: String
            let consent: ConsentBody
            /// What deliveries use: the install's signals over the project's default.
            let effective: ConsentBody
        }
        return try .json(
            Body(
                install_id: installID, consent: ConsentBody(consent),
                effective: ConsentBody(consent.resolved(default: project.settings.defaultConsent))), encoder: JSONCoders.encoder)
    }

    static func platform(of request: HTTPRequest) throws -> AdPlatform {
        let name = try request.parameter("platform")
        guard let platform = AdPlatform(rawValue: name) else {
            throw HTTPError.notFound("no ad platform '\(name.prefix(32))'; known: google, meta, tiktok, snap")
        }
        return platform
    }

    private static func text(_ body: JSONFields, _ key: String) throws -> String? { try body.string(key, maxLength: 2048) }

    /// `{"our_event": "TheirEvent" | null}`.
    private static func mapping(_ body: JSONFields) throws -> AdEventMapping? {
        guard let object = try body.object("event_mapping") else { return nil }
        var overrides: [String: String?] = [:]
        for (ours, theirs) in object.fields {
            switch theirs {
            case .string(let name): overrides[ours] = .some(name)
            case .null: overrides[ours] = .some(nil)
            default: throw HTTPError.invalidField("event_mapping.\(ours.prefix(64))", "must be the platform's event name or null")
            }
        }
        return AdEventMapping(overrides: overrides)
    }

    /// The connection as the API shows it: settings as stored, each secret masked.
    static func shown(_ connection: AdPlatformConnection) -> JSONValue {
        var object: [String: JSONValue] = [
            "platform": .string(connection.platform.rawValue), "enabled": .bool(connection.enabled),
            "created_at": .string(connection.createdAt.iso8601), "updated_at": .string(connection.updatedAt.iso8601),
        ]
        for (key, value) in connection.settings where !key.hasPrefix("link_id_") { object[key] = .string(value) }
        if connection.platform == .google {
            object["link_ids"] = .object([
                "ios": connection.settings["link_id_ios"].map(JSONValue.string) ?? .null,
                "android": connection.settings["link_id_android"].map(JSONValue.string) ?? .null,
            ])
        }
        for key in AdPlatformService.shape(of: connection.platform).secrets {
            object[key] = connection.secrets[key].map { .string(AdPlatformService.masked($0)) } ?? .null
        }
        var mapping: [String: JSONValue] = [:]
        for (ours, theirs) in connection.eventMapping.overrides { mapping[ours] = theirs.map(JSONValue.string) ?? .null }
        object["event_mapping"] = .object(mapping)
        return .object(object)
    }
}
