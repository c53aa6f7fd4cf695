import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// `/admin/v1/projects/{id}/webhooks` and `/deliveries` (outbound.md, "Names fixed for clients
/// and tests"): endpoints with their secret shown once, rotation, a test event, the deliveries
/// list and replays.
enum WebhookRoutes {
    /// `POST /admin/v1/projects/:id/webhooks`
    static func createEndpoint(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let payload = try request.decodeJSON(WebhookPayload.self)
            guard let url = payload.url else { throw HTTPError.invalidField("url", "is required") }
            let events: [String]? = if case .value(let list) = payload.events { list } else { nil }
            let endpoint = try services.app.webhooks.create(projectID: project.id, url: url, events: events, enabled: payload.enabled ?? true)
            return try .json(WebhookBody(endpoint, showingSecret: true), status: .created, encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/webhooks`
    static func listEndpoints(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let endpoints = try services.app.webhooks.list(projectID: project.id).map { WebhookBody($0) }
            return try .json(["webhooks": endpoints], encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/webhooks/:webhookId`
    static func showEndpoint(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let endpoint = try services.app.webhooks.existing(id: try request.parameter("webhookId"), projectID: project.id)
            return try .json(WebhookBody(endpoint), encoder: JSONCoders.encoder)
        }
    }

    /// `PATCH /admin/v1/projects/:id/webhooks/:webhookId`
    static func updateEndpoint(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let payload = try request.decodeJSON(WebhookPayload.self)
            let events: [String]?? =
                switch payload.events {
                case .absent: nil
                case .null: .some(nil)
                case .value(let list): .some(list)
                }
            let endpoint = try services.app.webhooks.update(
                id: try request.parameter("webhookId"), projectID: project.id,
                changes: .init(url: payload.url, events: events, enabled: payload.enabled))
            return try .json(WebhookBody(endpoint), encoder: JSONCoders.encoder)
        }
    }

    /// `DELETE /admin/v1/projects/:id/webhooks/:webhookId`
    static func deleteEndpoint(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            try services.app.webhooks.delete(id: try request.parameter("webhookId"), projectID: project.id)
            return HTTPResponse(status: .noContent)
        }
    }

    /// `POST /admin/v1/projects/:id/webhooks/:webhookId/rotate-secret`
    static func rotateSecret(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let endpoint = try services.app.webhooks.rotateSecret(id: try request.parameter("webhookId"), projectID: project.id)
            return try .json(WebhookBody(endpoint, showingSecret: true), encoder: JSONCoders.encoder)
        }
    }

    /// `POST /admin/v1/projects/:id/webhooks/:webhookId/test`
    static func sendTest(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let message = try services.app.webhooks.sendTest(id: try request.parameter("webhookId"), projectID: project.id)
            return try .json(["delivery_id": message.id, "event_id": message.eventID], status: .accepted, encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/deliveries?status=&kind=&since=&limit=`
    static func listDeliveries(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let status = try request.queryValue("status").map { text in
                guard let status = OutboxJob.Status(rawValue: text) else {
                    throw HTTPError.invalidField("status", "expected pending, delivered or failed")
                }
                return status
            }
            let kind = try request.queryValue("kind").map { text in
                guard ["webhook", "postback", "apple_ads", "skan_copy", AdPlatform.jobKind].contains(text) else {
                    throw HTTPError.invalidField("kind", "expected webhook, postback, apple_ads, skan_copy or ad_platform")
                }
                return text
            }
            let since = try TimeParameter.parse(request.queryValue("since"), name: "since", now: services.now(for: project))
            let limit = try integerQuery(request, "limit", in: 1...1000) ?? 100
            let jobs = try services.app.webhooks.deliveries(projectID: project.id, status: status, kind: kind, since: since, limit: limit)
            return try .json(["deliveries": jobs.map(DeliveryBody.init)], encoder: JSONCoders.encoder)
        }
    }

    /// `POST /admin/v1/projects/:id/deliveries/:deliveryId/replay`
    static func replayDelivery(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            try services.app.webhooks.replay(deliveryID: try request.parameter("deliveryId"), projectID: project.id)
            return try .json(["replayed": 1], status: .accepted, encoder: JSONCoders.encoder)
        }
    }

    /// `POST /admin/v1/projects/:id/deliveries/replay` `{"status": "failed", "since": …}`
    static func replayDeliveries(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let body = try JSONFields(request, known: ["status", "since"])
            let statusText = try body.string("status") ?? "failed"
            guard let status = OutboxJob.Status(rawValue: statusText), status != .pending else {
                throw HTTPError.invalidField("status", "expected failed or delivered")
            }
            let since =
                try TimeParameter.parse(try body.string("since"), name: "since", now: services.now(for: project))
                ?? Timestamp(milliseconds: 0)
            let count = try services.app.webhooks.replay(projectID: project.id, status: status, since: since)
            return try .json(["replayed": count], status: .accepted, encoder: JSONCoders.encoder)
        }
    }
}
