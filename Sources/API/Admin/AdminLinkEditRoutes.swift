import App
import Attribution
import Foundation
import HTTP
import JSON
import StoreContracts

/// `GET/PATCH/DELETE /admin/v1/projects/{id}/links/{linkId}` and `POST …/links/bulk`: a link read,
/// changed key by key, or deleted, and many links made at once.
enum AdminLinkEditRoutes {
    /// `GET /admin/v1/projects/:id/links/:linkId`
    static func show(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let link = try services.app.links.existing(id: try request.parameter("linkId"), projectID: project.id)
            let template = try services.app.links.template(of: link)
            return try .json(
                AdminLinkBody(link, template: template, base: LinkURLs.base(for: request, services: services)), encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/links/:linkId/variants?since=&until=`: the A/B split's report.
    static func variants(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let link = try services.app.links.existing(id: try request.parameter("linkId"), projectID: project.id)
            let (since, until) = try TimeParameter.period(of: request, now: services.now(for: project))
            let rows = try services.app.reports.variants(project: project, link: link, since: since, until: until)
            let body: JSONValue = .object([
                "link_id": .string(link.id), "since": .string(since.iso8601), "until": .string(until.iso8601),
                "variants": .array(
                    rows.map { row in
                        let variant = link.variants.first { $0.name == row.name }
                        return .object([
                            "name": .string(row.name), "url": variant.map { .string($0.url) } ?? .null,
                            "weight": variant.map { .number(Double($0.weight)) } ?? .null,
                            "clicks": .number(Double(row.clicks)), "installs": .number(Double(row.installs)),
                            "events": .number(Double(row.events)), "revenue": .object(row.revenue.mapValues { .number($0) }),
                        ])
                    }),
            ])
            return HTTPResponse.json(bytes: body.serialized())
        }
    }

    /// `PATCH /admin/v1/projects/:id/links/:linkId`: only the keys sent change; `null` clears one.
    static func update(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let existing = try services.app.links.existing(id: try request.parameter("linkId"), projectID: project.id)
            guard case .object(let patch) = try JSONBody.decode(JSONValue.self, from: request.body) else {
                throw HTTPError.invalidField("body", "must be a JSON object of the keys to change")
            }
            if case .null? = patch["short_code"] { throw HTTPError.invalidField("short_code", "cannot be cleared; send another code") }
            var fields = payload(of: existing)
            for (key, value) in patch {
                if case .null = value { fields[key] = nil } else { fields[key] = value }
            }
            if patch["template_slug"] != nil { fields["template_id"] = nil }
            let payload = try JSONBody.decode(AdminLinkPayload.self, from: JSONValue.object(fields).serialized())
            let template = try services.app.links.template(
                id: payload.template_id, slug: payload.template_slug, projectID: project.id,
                key: payload.template_id != nil ? "template_id" : "template_slug")
            var link = try payload.replacing(
                existing, templateID: template?.id, now: services.now(for: project), utmTemplates: project.settings.utmTemplates)
            if case .null? = patch["domain"] { link.domain = nil }
            if case .null? = patch["password"] { link.passwordHash = nil }
            link.fdl = existing.fdl
            let updated = try services.app.links.update(link, previousCode: existing.shortCode)
            return try .json(
                AdminLinkBody(updated, template: template, base: LinkURLs.base(for: request, services: services)), encoder: JSONCoders.encoder)
        }
    }

    /// `DELETE /admin/v1/projects/:id/links/:linkId`: its clicks and installs stay counted in the
    /// project's stats (the clicks lose their link).
    static func delete(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            try services.app.links.delete(id: try request.parameter("linkId"), projectID: project.id)
            return HTTPResponse(status: .noContent)
        }
    }

    static let bulkLimit = 1000

    /// `POST /admin/v1/projects/:id/links/bulk` `{"links": [...]}`: up to 1,000 links, each made
    /// or refused on its own; the answer reports each by its index.
    static func bulk(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let body = try JSONFields(request, known: ["links"]).fields
            guard case .array(let items)? = body["links"] else {
                throw HTTPError.invalidField("links", "is required: an array of links")
            }
            guard (1...bulkLimit).contains(items.count) else {
                throw HTTPError.invalidField("links", "must hold 1 to \(bulkLimit) links, got \(items.count)")
            }
            let base = LinkURLs.base(for: request, services: services)
            var results: [JSONValue] = []
            var created = 0
            for (index, item) in items.enumerated() {
                do {
                    let payload = try JSONBody.decode(AdminLinkPayload.self, from: item.serialized())
                    let template = try services.app.links.template(
                        id: payload.template_id, slug: payload.template_slug, projectID: project.id,
                        key: payload.template_id != nil ? "template_id" : "template_slug")
                    let link = try payload.link(
                        projectID: project.id, templateID: template?.id, now: services.now(for: project),
                        utmTemplates: project.settings.utmTemplates)
                    let made = try services.app.links.create(link, codeIsCustom: payload.short_code != nil)
                    let shown = try JSONBody.decode(
                        JSONValue.self, from: Array(JSONCoders.encoder.encode(AdminLinkBody(made, template: template, base: base))))
                    results.append(.object(["index": .number(Double(index)), "status": .number(201), "link": shown]))
                    created += 1
                } catch {
                    let (status, message) = refusal(error)
                    results.append(.object(["index": .number(Double(index)), "status": .number(Double(status)), "error": .string(message)]))
                }
            }
            let answer = JSONValue.object([
                "created": .number(Double(created)), "refused": .number(Double(items.count - created)), "results": .array(results),
            ])
            return .json(bytes: answer.serialized(), status: created > 0 ? .created : .unprocessableContent)
        }
    }

    /// A row's refusal as its status and message, the way the single-link route would answer it.
    static func refusal(_ error: any Error) -> (Int, String) {
        switch error {
        case let error as HTTPError: return (error.status.code, error.message)
        case let error as AppError:
            if case .notFound(let message) = error { return (404, message) }
            return (422, error.message)
        case StoreError.conflict(let message): return (409, message)
        default: return (422, "\(error)")
        }
    }

    /// The link as the admin API's create body would describe it, to lay a patch over.
    static func payload(of link: Link) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [
            "short_code": .string(link.shortCode), "append_click_id": .bool(link.appendClickID), "active": .bool(link.active),
        ]
        func put(_ key: String, _ value: String?) { if let value { fields[key] = .string(value) } }
        put("template_id", link.templateID)
        put("title", link.title)
        put("description", link.description)
        put("original_url", link.originalURL)
        put("ios_url", link.iosURL)
        put("android_url", link.androidURL)
        put("web_url", link.webURL)
        put("app_scheme", link.appScheme)
        put("deep_link_path", link.deepLinkPath)
        put("expires_at", link.expiresAt?.iso8601)
        put("expired_url", link.expiredURL)
        put("domain", link.domain)
        if !link.rules.isEmpty { fields["rules"] = LinkRoutingJSON.json(link.rules) }
        if !link.variants.isEmpty { fields["variants"] = LinkRoutingJSON.json(link.variants) }
        if let escape = link.inAppEscape { fields["in_app_escape"] = .bool(escape) }
        if !link.deepLinkParameters.isEmpty { fields["deep_link_parameters"] = .object(link.deepLinkParameters.mapValues { .string($0) }) }
        if !link.utm.isEmpty { fields["utm"] = .object(link.utm.map.mapValues { .string($0) }) }
        var og: [String: JSONValue] = [:]
        if let title = link.og.title { og["title"] = .string(title) }
        if let description = link.og.description { og["description"] = .string(description) }
        if let image = link.og.image { og["image"] = .string(image) }
        if !og.isEmpty { fields["og"] = .object(og) }
        if let targeting = link.targeting, let value = try? JSONBody.decode(JSONValue.self, from: Array(targeting.utf8)) {
            fields["targeting"] = value
        }
        if let hours = link.attributionWindowHours { fields["attribution_window_hours"] = .number(Double(hours)) }
        if let maxClicks = link.maxClicks { fields["max_clicks"] = .number(Double(maxClicks)) }
        return fields
    }
}
