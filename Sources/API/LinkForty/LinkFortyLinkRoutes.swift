import App
import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts

/// `POST /api/sdk/v1/links` (SDK link creation, template optional) and `/api/links` (explicit
/// template, full fields, with GET/PUT/DELETE): LinkForty's camelCase shapes, API key required.
enum LinkFortyLinkRoutes {
    /// `POST /api/sdk/v1/links`
    static func createSDKLink(_ services: Services) -> RouteHandler {
        let auth = LinkFortyAuth(services: services)
        let linkService = services.app.links
        return .sync { request in
            let project = try auth.projectRequiringKey(request)
            let options = try request.decodeJSON(LinkFortyLinkPayload.self)
            let template =
                try linkService.template(
                    id: options.templateId, slug: options.templateSlug, projectID: project.id,
                    key: options.templateId != nil ? "templateId" : "templateSlug")
                ?? linkService.mostRecentTemplate(projectID: project.id)
            return try create(options, project: project, template: template, request: request, services: services, linkService: linkService)
        }
    }

    /// `POST /api/links`
    static func createLink(_ services: Services) -> RouteHandler {
        let auth = LinkFortyAuth(services: services)
        let linkService = services.app.links
        return .sync { request in
            let project = try auth.projectRequiringKey(request)
            let options = try request.decodeJSON(LinkFortyLinkPayload.self)
            guard options.templateId != nil else { throw HTTPError.invalidField("templateId", "is required") }
            let template = try linkService.template(id: options.templateId, slug: nil, projectID: project.id, key: "templateId")
            return try create(options, project: project, template: template, request: request, services: services, linkService: linkService)
        }
    }

    /// `GET /api/links`
    static func listLinks(_ services: Services) -> RouteHandler {
        let auth = LinkFortyAuth(services: services)
        let linkService = services.app.links
        return .sync { request in
            let project = try auth.projectRequiringKey(request)
            let templates = try linkService.templatesByID(projectID: project.id)
            let base = LinkURLs.base(for: request, services: services)
            let links = try linkService.list(projectID: project.id, limit: 1000)
            return try .json(
                links.map { LinkFortyLinkBody($0, template: $0.templateID.flatMap { templates[$0] }, base: base, deduplicated: false) },
                encoder: JSONCoders.encoder)
        }
    }

    /// `GET /api/links/:id`
    static func showLink(_ services: Services) -> RouteHandler {
        let auth = LinkFortyAuth(services: services)
        let linkService = services.app.links
        return .sync { request in
            let project = try auth.projectRequiringKey(request)
            let link = try linkService.existing(id: try request.parameter("id"), projectID: project.id)
            let template = try linkService.template(of: link)
            return try .json(
                LinkFortyLinkBody(link, template: template, base: LinkURLs.base(for: request, services: services), deduplicated: false),
                encoder: JSONCoders.encoder)
        }
    }

    /// `PUT /api/links/:id`
    static func updateLink(_ services: Services) -> RouteHandler {
        let auth = LinkFortyAuth(services: services)
        let linkService = services.app.links
        return .sync { request in
            let project = try auth.projectRequiringKey(request)
            var link = try linkService.existing(id: try request.parameter("id"), projectID: project.id)
            let previousCode = link.shortCode
            let options = try request.decodeJSON(LinkFortyLinkPayload.self)
            let template = try linkService.template(id: options.templateId, slug: options.templateSlug, projectID: project.id, key: "templateId")
            if let template { link.templateID = template.id }
            try options.apply(to: &link)
            link.updatedAt = services.now(for: project)
            let updated = try linkService.update(link, previousCode: previousCode, fieldNames: LinkFortyLinkPayload.fieldNames)
            let shownTemplate = try linkService.template(of: updated)
            return try .json(
                LinkFortyLinkBody(updated, template: shownTemplate, base: LinkURLs.base(for: request, services: services), deduplicated: false),
                encoder: JSONCoders.encoder)
        }
    }

    /// `DELETE /api/links/:id`
    static func deleteLink(_ services: Services) -> RouteHandler {
        let auth = LinkFortyAuth(services: services)
        let linkService = services.app.links
        return .sync { request in
            let project = try auth.projectRequiringKey(request)
            try linkService.delete(id: try request.parameter("id"), projectID: project.id)
            return HTTPResponse(status: .noContent)
        }
    }

    static func create(
        _ options: LinkFortyLinkPayload, project: Project, template: LinkTemplate?, request: HTTPRequest,
        services: Services, linkService: LinkService
    ) throws -> HTTPResponse {
        let base = LinkURLs.base(for: request, services: services)
        // The same external user asking for the same link gets the one they already have.
        let optionsHash = options.externalUserId.map { _ in options.fingerprint(templateID: template?.id) }
        if let user = options.externalUserId, let hash = optionsHash,
            let existing = try linkService.duplicate(projectID: project.id, externalUserID: user, optionsHash: hash)
        {
            return try .json(LinkFortyLinkBody(existing, template: template, base: base, deduplicated: true), encoder: JSONCoders.encoder)
        }
        var link = Link(
            id: Identifiers.newID(), projectID: project.id, templateID: template?.id, shortCode: options.customCode ?? "",
            externalUserID: options.externalUserId, optionsHash: optionsHash, createdAt: services.now(for: project))
        try options.apply(to: &link)
        let created = try linkService.create(link, codeIsCustom: options.customCode != nil, fieldNames: LinkFortyLinkPayload.fieldNames)
        return try .json(
            LinkFortyLinkBody(created, template: template, base: base, deduplicated: false), status: .created,
            encoder: JSONCoders.encoder)
    }
}

/// CreateLinkOptions and the dashboard's link fields. Unknown keys are ignored (as LinkForty does).
struct LinkFortyLinkPayload: Decodable {
    struct UTMParameters: Decodable, Equatable { var source, medium, campaign, term, content: String? }

    var templateId: String?
    var templateSlug: String?
    var deepLinkParameters: [String: String]?
    var title: String?
    var description: String?
    var customCode: String?
    var utmParameters: UTMParameters?
    var externalUserId: String?
    var originalUrl: String?
    var iosAppStoreUrl: String?
    var androidAppStoreUrl: String?
    var webFallbackUrl: String?
    var appScheme: String?
    var deepLinkPath: String?
    var targetingRules: JSONValue?
    var attributionWindowHours: Int?
    var expiresAt: String?
    /// One of the project's own domains (attributiond's addition: LinkForty has one per deployment).
    var domain: String?

    /// The link's fields as this payload names them, for validation messages.
    static let fieldNames = [
        "short_code": "customCode", "original_url": "originalUrl", "ios_url": "iosAppStoreUrl", "android_url": "androidAppStoreUrl",
        "web_url": "webFallbackUrl", "app_scheme": "appScheme", "deep_link_path": "deepLinkPath",
        "attribution_window_hours": "attributionWindowHours", "domain": "domain",
    ]

    func apply(to link: inout Link) throws {
        if let customCode { link.shortCode = customCode }
        if let domain { link.domain = domain }
        if let deepLinkParameters { link.deepLinkParameters = deepLinkParameters }
        if let title { link.title = title }
        if let description { link.description = description }
        if let utm = utmParameters {
            link.utm = UTM(source: utm.source, medium: utm.medium, campaign: utm.campaign, term: utm.term, content: utm.content)
        }
        if let originalUrl { link.originalURL = originalUrl }
        if let iosAppStoreUrl { link.iosURL = iosAppStoreUrl }
        if let androidAppStoreUrl { link.androidURL = androidAppStoreUrl }
        if let webFallbackUrl { link.webURL = webFallbackUrl }
        if let appScheme { link.appScheme = appScheme }
        if let deepLinkPath { link.deepLinkPath = deepLinkPath }
        if let targetingRules { link.targeting = String(decoding: try JSONCoders.sortedEncoder.encode(targetingRules), as: UTF8.self) }
        if let attributionWindowHours { link.attributionWindowHours = attributionWindowHours }
        if let expiresAt {
            guard let timestamp = Timestamp(iso8601: expiresAt) else { throw HTTPError.invalidField("expiresAt", "must be an ISO 8601 time") }
            link.expiresAt = timestamp
        }
    }

    /// A stable digest of what was asked for, so a repeated request can be recognised.
    func fingerprint(templateID: String?) -> String {
        let parts: [String] = [
            templateID ?? "", title ?? "", description ?? "", customCode ?? "",
            (deepLinkParameters ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&"),
            [utmParameters?.source, utmParameters?.medium, utmParameters?.campaign, utmParameters?.term, utmParameters?.content]
                .map { $0 ?? "" }.joined(separator: "|"),
        ]
        // The domain only when given, so that links stored before domains keep their digests.
        return Secrets.sha256Hex((parts + (domain.map { [$0] } ?? [])).joined(separator: "\u{1F}"))
    }
}

/// What both LinkForty link endpoints answer: the SDK's CreateLinkResult keys (`url`, `shortCode`,
/// `linkId`), the dashboard's (`id`, `short_code`), and the link's fields.
struct LinkFortyLinkBody: Encodable {
    let id: String
    let short_code: String
    let url: String
    let shortCode: String
    let linkId: String
    let deduplicated: Bool
    let templateId: String?
    let templateSlug: String?
    let title: String?
    let description: String?
    let originalUrl: String?
    let iosAppStoreUrl: String?
    let androidAppStoreUrl: String?
    let webFallbackUrl: String?
    let appScheme: String?
    let deepLinkPath: String?
    let deepLinkParameters: [String: String]
    let utmParameters: [String: String]
    let attributionWindowHours: Int?
    let expiresAt: String?
    let isActive: Bool
    let createdAt: String

    init(_ link: Link, template: LinkTemplate?, base: String, deduplicated: Bool) {
        id = link.id
        short_code = link.shortCode
        url = LinkURLs.url(base: LinkURLs.base(of: link, otherwise: base), shortCode: link.shortCode, templateSlug: template?.slug)
        shortCode = link.shortCode
        linkId = link.id
        self.deduplicated = deduplicated
        templateId = link.templateID
        templateSlug = template?.slug
        title = link.title
        description = link.description
        originalUrl = link.originalURL
        iosAppStoreUrl = link.iosURL
        androidAppStoreUrl = link.androidURL
        webFallbackUrl = link.webURL
        appScheme = link.appScheme
        deepLinkPath = link.deepLinkPath
        deepLinkParameters = link.deepLinkParameters
        utmParameters = link.utm.map
        attributionWindowHours = link.attributionWindowHours
        expiresAt = link.expiresAt?.iso8601
        isActive = link.active
        createdAt = link.createdAt.iso8601
    }
}
