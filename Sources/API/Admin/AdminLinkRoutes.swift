import App
import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts

/// `POST/GET /admin/v1/projects/{id}/links`: the full link model of links-and-clicks.md.
enum AdminLinkRoutes {
    /// `POST /admin/v1/projects/:id/links`
    static func createLink(_ services: Services) -> RouteHandler {
        let linkService = services.app.links
        return ProjectScoped.sync(services) { request, project in
            let payload = try request.decodeJSON(AdminLinkPayload.self)
            let template = try linkService.template(
                id: payload.template_id, slug: payload.template_slug, projectID: project.id,
                key: payload.template_id != nil ? "template_id" : "template_slug")
            let link = try payload.link(
                projectID: project.id, templateID: template?.id, now: services.now(for: project), utmTemplates: project.settings.utmTemplates)
            let created = try linkService.create(link, codeIsCustom: payload.short_code != nil)
            let base = LinkURLs.base(for: request, services: services)
            return try .json(AdminLinkBody(created, template: template, base: base), status: .created, encoder: JSONCoders.encoder)
        }
    }

    /// `GET /admin/v1/projects/:id/links`
    static func listLinks(_ services: Services) -> RouteHandler {
        let linkService = services.app.links
        return ProjectScoped.sync(services) { request, project in
            let base = LinkURLs.base(for: request, services: services)
            let templates = try linkService.templatesByID(projectID: project.id)
            let limit = try integerQuery(request, "limit", in: 1...1000) ?? 100
            let offset = try integerQuery(request, "offset", in: 0...Int(Int32.max)) ?? 0
            let links = try linkService.list(projectID: project.id, limit: limit, offset: offset)
            return try .json(
                links.map { AdminLinkBody($0, template: $0.templateID.flatMap { templates[$0] }, base: base) },
                encoder: JSONCoders.encoder)
        }
    }
}

/// A whole-number query parameter within `range`; nil when absent, 422 naming it otherwise.
func integerQuery(_ request: HTTPRequest, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
    guard let text = request.queryValue(name) else { return nil }
    guard let value = Int(text), range.contains(value) else {
        throw HTTPError.invalidField(name, "expected a whole number from \(range.lowerBound) to \(range.upperBound)")
    }
    return value
}

struct AdminLinkPayload: Decodable {
    struct OpenGraph: Decodable {
        var title: String?
        var description: String?
        var image: String?
    }

    var short_code: String?
    var template_id: String?
    var template_slug: String?
    var title: String?
    var description: String?
    var original_url: String?
    var ios_url: String?
    var android_url: String?
    var web_url: String?
    var app_scheme: String?
    var deep_link_path: String?
    var deep_link_parameters: [String: String]?
    var utm: [String: String]?
    var targeting: JSONValue?
    var og: OpenGraph?
    var attribution_window_hours: Int?
    var append_click_id: Bool?
    var expires_at: String?
    var max_clicks: Int?
    var active: Bool?
    var domain: String?
    var in_app_escape: Bool?
    var rules: JSONValue?
    var variants: JSONValue?
    var expired_url: String?
    /// The name of one of the project's `utm_templates`, whose values fill the UTM keys left empty.
    var utm_template: String?
    /// Write-only: stored as a PBKDF2 hash, shown back as `has_password`.
    var password: String?
    /// A link's password guards a page many visitors open, not an account, and every visitor's
    /// submit is verified on the request path: a sixth of the dashboard's count, with the
    /// per-client budget of sign-in in front of it.
    static let passwordIterations = 100_000

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case short_code, template_id, template_slug, title, description, original_url, ios_url, android_url, web_url, app_scheme,
            deep_link_path, deep_link_parameters, utm, targeting, og, attribution_window_hours, append_click_id, expires_at,
            max_clicks, active, domain, in_app_escape, rules, variants, expired_url, password, utm_template
    }

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(Set(CodingKeys.allCases.map(\.rawValue)))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        short_code = try c.decodeIfPresent(String.self, forKey: .short_code)
        template_id = try c.decodeIfPresent(String.self, forKey: .template_id)
        template_slug = try c.decodeIfPresent(String.self, forKey: .template_slug)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        original_url = try c.decodeIfPresent(String.self, forKey: .original_url)
        ios_url = try c.decodeIfPresent(String.self, forKey: .ios_url)
        android_url = try c.decodeIfPresent(String.self, forKey: .android_url)
        web_url = try c.decodeIfPresent(String.self, forKey: .web_url)
        app_scheme = try c.decodeIfPresent(String.self, forKey: .app_scheme)
        deep_link_path = try c.decodeIfPresent(String.self, forKey: .deep_link_path)
        deep_link_parameters = try c.decodeIfPresent([String: String].self, forKey: .deep_link_parameters)
        utm = try c.decodeIfPresent([String: String].self, forKey: .utm)
        targeting = try c.decodeIfPresent(JSONValue.self, forKey: .targeting)
        og = try c.decodeIfPresent(OpenGraph.self, forKey: .og)
        attribution_window_hours = try c.decodeIfPresent(Int.self, forKey: .attribution_window_hours)
        append_click_id = try c.decodeIfPresent(Bool.self, forKey: .append_click_id)
        expires_at = try c.decodeIfPresent(String.self, forKey: .expires_at)
        max_clicks = try c.decodeIfPresent(Int.self, forKey: .max_clicks)
        active = try c.decodeIfPresent(Bool.self, forKey: .active)
        domain = try c.decodeIfPresent(String.self, forKey: .domain)
        in_app_escape = try c.decodeIfPresent(Bool.self, forKey: .in_app_escape)
        rules = try c.decodeIfPresent(JSONValue.self, forKey: .rules)
        variants = try c.decodeIfPresent(JSONValue.self, forKey: .variants)
        expired_url = try c.decodeIfPresent(String.self, forKey: .expired_url)
        password = try c.decodeIfPresent(String.self, forKey: .password)
        utm_template = try c.decodeIfPresent(String.self, forKey: .utm_template)
        if let password, !(1...128).contains(password.count) || password.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            throw HTTPError.invalidField("password", "must be 1 to 128 characters without control characters")
        }
    }

    /// - Parameter utmTemplates: the project's, one of which `utm_template` may name.
    func link(projectID: String, templateID: String?, now: Timestamp, utmTemplates: [UTMTemplate] = []) throws -> Link {
        var link = try link(
            id: Identifiers.newID(), projectID: projectID, templateID: templateID, shortCode: short_code ?? "", createdAt: now, updatedAt: now)
        try applyUTMTemplate(to: &link, from: utmTemplates)
        return link
    }

    private func applyUTMTemplate(to link: inout Link, from templates: [UTMTemplate]) throws {
        guard let name = utm_template, !name.isEmpty else { return }
        guard let template = templates.first(where: { $0.name == name }) else {
            let known = templates.isEmpty ? "the project has none" : "the project has " + templates.map { "'\($0.name)'" }.joined(separator: ", ")
            throw HTTPError.invalidField("utm_template", "no UTM template named '\(name)'; \(known)")
        }
        link.utm = template.filling(link.utm)
    }

    /// `existing` as this payload describes it in full (absent fields cleared), keeping its id,
    /// its short code unless one is given, and its creation time: the dashboard's edit form.
    func replacing(_ existing: Link, templateID: String?, now: Timestamp, utmTemplates: [UTMTemplate] = []) throws -> Link {
        var link = try link(
            id: existing.id, projectID: existing.projectID, templateID: templateID, shortCode: short_code ?? existing.shortCode,
            createdAt: existing.createdAt, updatedAt: now)
        link.externalUserID = existing.externalUserID
        // Like the code, the domain is kept unless one is given; so is the password (never shown back).
        if domain == nil { link.domain = existing.domain }
        if password == nil { link.passwordHash = existing.passwordHash }
        link.optionsHash = existing.optionsHash
        try applyUTMTemplate(to: &link, from: utmTemplates)
        return link
    }

    private func link(
        id: String, projectID: String, templateID: String?, shortCode: String, createdAt: Timestamp,
        updatedAt: Timestamp
    ) throws -> Link {
        for key in (utm ?? [:]).keys where !LinkTemplate.utmKeys.contains(key) {
            throw HTTPError.invalidField("utm.\(key)", "unknown UTM key; use source, medium, campaign, term or content")
        }
        let expiresAt = try expires_at.map { text -> Timestamp in
            guard let timestamp = Timestamp(iso8601: text) else { throw HTTPError.invalidField("expires_at", "must be an ISO 8601 time") }
            return timestamp
        }
        let routing: (rules: [LinkRule], variants: [LinkVariant])
        do {
            routing = (try rules.map { try LinkRoutingJSON.rules($0) } ?? [], try variants.map { try LinkRoutingJSON.variants($0) } ?? [])
        } catch let refusal as LinkRoutingJSON.Refusal {
            throw HTTPError.invalidField(refusal.problem.key, refusal.problem.message)
        }
        return Link(
            id: id, projectID: projectID, templateID: templateID, shortCode: shortCode,
            title: title, description: description, originalURL: original_url, iosURL: ios_url, androidURL: android_url,
            webURL: web_url, appScheme: app_scheme, deepLinkPath: deep_link_path, deepLinkParameters: deep_link_parameters ?? [:],
            utm: UTM(utm ?? [:]), targeting: try targeting.map { String(decoding: try JSONCoders.sortedEncoder.encode($0), as: UTF8.self) },
            og: Link.OpenGraph(title: og?.title, description: og?.description, image: og?.image),
            attributionWindowHours: attribution_window_hours, appendClickID: append_click_id ?? false,
            expiresAt: expiresAt, maxClicks: max_clicks, active: active ?? true, createdAt: createdAt, updatedAt: updatedAt,
            domain: domain, inAppEscape: in_app_escape, rules: routing.rules, variants: routing.variants, expiredURL: expired_url,
            passwordHash: password.map { PasswordHash.make($0, iterations: Self.passwordIterations) })
    }
}

struct AdminLinkBody: Encodable {
    let id: String
    let project_id: String
    let template_id: String?
    let template_slug: String?
    let short_code: String
    /// The project domain the link lives on; null: any Host that is not another project's domain.
    let domain: String?
    /// Whether taps in social apps' browsers are led out; null: as the project says.
    let in_app_escape: Bool?
    let url: String
    let qr_url: String
    let title: String?
    let description: String?
    let original_url: String?
    let ios_url: String?
    let android_url: String?
    let web_url: String?
    let app_scheme: String?
    let deep_link_path: String?
    let deep_link_parameters: [String: String]
    let utm: [String: String]
    let og: [String: String]
    let attribution_window_hours: Int?
    let append_click_id: Bool
    let expires_at: String?
    let expired_url: String?
    let max_clicks: Int?
    let active: Bool
    /// Tried in order before the link's destinations; the JSON they were given as.
    let rules: JSONValue
    let variants: JSONValue
    let has_password: Bool
    let created_at: String

    init(_ link: Link, template: LinkTemplate?, base: String) {
        id = link.id
        project_id = link.projectID
        template_id = link.templateID
        template_slug = template?.slug
        short_code = link.shortCode
        domain = link.domain
        in_app_escape = link.inAppEscape
        url = LinkURLs.url(base: LinkURLs.base(of: link, otherwise: base), shortCode: link.shortCode, templateSlug: template?.slug)
        qr_url = url + "/qr"
        title = link.title
        description = link.description
        original_url = link.originalURL
        ios_url = link.iosURL
        android_url = link.androidURL
        web_url = link.webURL
        app_scheme = link.appScheme
        deep_link_path = link.deepLinkPath
        deep_link_parameters = link.deepLinkParameters
        utm = link.utm.map
        var og: [String: String] = [:]
        og["title"] = link.og.title
        og["description"] = link.og.description
        og["image"] = link.og.image
        self.og = og
        attribution_window_hours = link.attributionWindowHours
        append_click_id = link.appendClickID
        expires_at = link.expiresAt?.iso8601
        expired_url = link.expiredURL
        max_clicks = link.maxClicks
        active = link.active
        rules = LinkRoutingJSON.json(link.rules)
        variants = LinkRoutingJSON.json(link.variants)
        has_password = link.passwordHash != nil
        created_at = link.createdAt.iso8601
    }
}
