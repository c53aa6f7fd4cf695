import App
import Attribution
import HTTP
import StoreContracts

/// `/admin/v1/projects/{id}/postbacks` (outbound.md, "Ad-network postbacks"): templates with
/// `{macros}`, sent for installs attributed to their network.
enum PostbackRoutes {
    /// `POST /admin/v1/projects/:id/postbacks`
    static func create(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let fields = try request.decodeJSON(PostbackPayload.self).fields
            let template = try services.app.postbacks.create(projectID: project.id, fields)
            return try .json(PostbackBody(template), status: .created, encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/postbacks`
    static func list(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            return try .json(
                ["postbacks": try services.app.postbacks.list(projectID: project.id).map(PostbackBody.init)],
                encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/postbacks/:postbackId`
    static func show(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let template = try services.app.postbacks.existing(id: try request.parameter("postbackId"), projectID: project.id)
            return try .json(PostbackBody(template), encoder: JSONCoders.encoder)
        }
    }

    /// `PATCH /admin/v1/projects/:id/postbacks/:postbackId`
    static func update(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let fields = try request.decodeJSON(PostbackPayload.self).fields
            let template = try services.app.postbacks.update(id: try request.parameter("postbackId"), projectID: project.id, fields)
            return try .json(PostbackBody(template), encoder: JSONCoders.encoder)
        }
    }

    /// `DELETE /admin/v1/projects/:id/postbacks/:postbackId`
    static func delete(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            try services.app.postbacks.delete(id: try request.parameter("postbackId"), projectID: project.id)
            return HTTPResponse(status: .noContent)
        }
    }
}

/// `{network, trigger, method?, url, body?, enabled?}`.
struct PostbackPayload: Decodable {
    var fields = PostbackService.Fields()

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(["network", "trigger", "method", "url", "body", "enabled"])
        let c = try decoder.container(keyedBy: AnyCodingKey.self)
        func key(_ name: String) -> AnyCodingKey { AnyCodingKey(stringValue: name) }
        fields.network = try c.decodeIfPresent(String.self, forKey: key("network"))
        fields.trigger = try c.decodeIfPresent(String.self, forKey: key("trigger"))
        fields.method = try c.decodeIfPresent(String.self, forKey: key("method"))
        fields.url = try c.decodeIfPresent(String.self, forKey: key("url"))
        switch try c.decodePatch(String.self, forKey: key("body")) {
        case .absent: break
        case .null: fields.body = .some(nil)
        case .value(let body): fields.body = .some(body)
        }
        fields.enabled = try c.decodeIfPresent(Bool.self, forKey: key("enabled"))
    }
}

struct PostbackBody: Encodable {
    let id: String
    let network: String
    let trigger: String
    let method: String
    let url: String
    let body: String?
    let enabled: Bool
    let created_at: String
    let updated_at: String

    init(_ template: PostbackTemplate) {
        id = template.id
        network = template.network
        trigger = template.trigger
        method = template.method
        url = template.url
        body = template.body
        enabled = template.enabled
        created_at = template.createdAt.iso8601
        updated_at = template.updatedAt.iso8601
    }
}
