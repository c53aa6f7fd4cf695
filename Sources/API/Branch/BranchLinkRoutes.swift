import App
import Attribution
import Foundation
import HTTP
import JSON
import StoreContracts

/// Links and identities through Branch's SDKs (docs/sdk-apis.md, "Branch"): `POST /v1/url`
/// makes a short link on the project's domain (counted like any link), `GET /v1/url` reads one
/// back, `POST /v1/profile` and `/v1/logout` set and clear the user on the install, and the
/// calls the SDKs make beside a session are answered as Branch answers them with nothing to say.
enum BranchLinkRoutes {
    /// `POST /v1/url` → `{"url": …}`; an alias another link has is 409.
    static func create(_ services: Services) -> RouteHandler {
        let auth = BranchAuth(services: services)
        return .sync(
            BranchErrors.guarded(services) { request in
                let body = try JSONFields(request)
                let project = try auth.project(key: try body.string("branch_key", maxLength: 64))
                let payload = try BranchLinkPayload(body)
                var link = Link(id: Identifiers.newID(), projectID: project.id, shortCode: payload.alias ?? "", createdAt: services.now(for: project))
                try payload.apply(to: &link)
                let created = try services.app.links.create(link, codeIsCustom: payload.alias != nil, fieldNames: BranchLinkPayload.fieldNames)
                let base = LinkURLs.base(of: created, otherwise: LinkURLs.base(for: request, services: services))
                let url = LinkURLs.url(base: base, shortCode: created.shortCode, templateSlug: nil)
                return .json(bytes: JSONValue.object(["url": .string(url)]).serialized())
            })
    }

    /// `GET /v1/url?url=…&branch_key=…`: the link's data and tags, as Branch's read-link API
    /// answers them.
    static func read(_ services: Services) -> RouteHandler {
        let auth = BranchAuth(services: services)
        return .sync(
            BranchErrors.guarded(services) { request in
                let project = try auth.project(key: request.queryValue("branch_key"))
                guard let text = request.queryValue("url"), let url = URLComponents(string: text),
                    let code = url.path.split(separator: "/").last.map(String.init)
                else { throw HTTPError.invalidField("url", "must be a link's URL") }
                let segments = url.path.split(separator: "/").map(String.init)
                let slug = segments.count == 2 ? segments[0] : nil
                guard let (_, target) = try AppOpenLinks.find(code: code, slug: slug, project: project, openedOn: [url.host], services: services)
                else { throw HTTPError.notFound("no link '\(code.prefix(64))' in this project") }
                let base = LinkURLs.base(of: target.link, otherwise: LinkURLs.base(for: request, services: services))
                let shortURL = LinkURLs.url(base: base, shortCode: target.link.shortCode, templateSlug: target.templateSlug)
                let data = BranchLinkData.fields(target, shortURL: shortURL)
                var fields: [String: JSONValue] = [
                    "data": .object(data), "type": .number(0), "alias": .string(target.link.shortCode), "url": .string(shortURL),
                ]
                for (key, tag) in [
                    ("~channel", "channel"), ("~feature", "feature"), ("~campaign", "campaign"), ("~stage", "stage"), ("~tags", "tags"),
                ] {
                    if let value = data[key] { fields[tag] = value }
                }
                return .json(bytes: JSONValue.object(fields).serialized())
            })
    }

    /// `POST /v1/profile` (`setIdentity`): the user id on the install the session named.
    static func profile(_ services: Services) -> RouteHandler { identity(services, clearing: false) }

    /// `POST /v1/logout`: the app forgets its user; the install keeps the user it had (its
    /// signup is history), and the next `setIdentity` sets another.
    static func logout(_ services: Services) -> RouteHandler { identity(services, clearing: true) }

    private static func identity(_ services: Services, clearing: Bool) -> RouteHandler {
        let auth = BranchAuth(services: services)
        return .sync(
            BranchErrors.guarded(services) { request in
                let body = try JSONFields(request)
                let project = try auth.project(key: try body.string("branch_key", maxLength: 64))
                guard let installID = try body.identifier("randomized_bundle_token") ?? body.identifier("identity_id") else {
                    throw HTTPError.badRequest("randomized_bundle_token is required: start a session first", code: "missing_field")
                }
                guard try services.app.projects.owner(ofInstall: installID) == project.id else {
                    throw HTTPError.notFound("no install '\(installID.prefix(64))' in this project")
                }
                let identity = clearing ? "" : try body.identifier("identity") ?? ""
                if !clearing {
                    guard !identity.isEmpty else { throw HTTPError.badRequest("identity is required", code: "missing_field") }
                    try services.app.activity.updateInstall(installID, userID: identity)
                }
                let base = LinkURLs.base(for: request, services: services)
                var fields: [String: JSONValue] = [
                    "session_id": .string(Identifiers.newID()), "randomized_bundle_token": .string(installID), "identity_id": .string(installID),
                    "link": .string(base),
                ]
                if !clearing {
                    fields["identity"] = .string(identity)
                    fields["referring_data"] = .string("{}")
                }
                return .json(bytes: JSONValue.object(fields).serialized())
            })
    }

    /// The calls beside a session that carry nothing this server acts on (`/v1/cpid`,
    /// `/v1/cpid/latd`, `/v1/pageview`, `/v1/app-link-settings`, `/v1/register-view`): the key is
    /// checked and Branch's empty answer given, so that the SDKs never log a failure.
    static func acknowledged(_ services: Services, answer: JSONValue) -> RouteHandler {
        let auth = BranchAuth(services: services)
        let bytes = answer.serialized()
        return .sync(
            BranchErrors.guarded(services) { request in
                let key: String? =
                    if request.body.isEmpty { request.queryValue("branch_key") } else { try JSONFields(request).string("branch_key", maxLength: 64) }
                _ = try auth.project(key: key)
                return .json(bytes: bytes)
            })
    }
}
