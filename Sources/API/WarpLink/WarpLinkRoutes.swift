import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// WarpLink's SDK API under `/v1` (docs/sdk-apis.md, "WarpLink"): key check, link resolve (an app
/// open, recorded as a click), deferred deep-link matching, link creation. Every answer leaves
/// absent fields out and every refusal is WarpLink's `{"error": {"code", "message"}}`.
enum WarpLinkRoutes {
    /// `GET /v1/sdk/validate`: 200 with the link domains the SDK should accept.
    static func validate(_ services: Services) -> RouteHandler {
        let auth = WarpLinkAuth(services: services)
        return .inline(
            WarpLinkErrors.guarded(services) { request in
                let project = try auth.project(request)
                let base = LinkURLs.base(for: request, services: services)
                // The SDK accepts links on these hosts: this server's name and the project's domains.
                let own = try services.app.domains.list(projectID: project.id).map(\.domain)
                var names = URLQuery.host(of: base).map { [$0] } ?? []
                for name in own where !names.contains(name) { names.append(name) }
                let domains = names.map { JSONValue.string($0) }
                return .json(bytes: JSONValue.object(["valid": .bool(true), "domains": .array(domains)]).serialized())
            })
    }

    /// `GET /v1/links/resolve/:slug?domain=…[&params=…]`
    static func resolve(_ services: Services) -> RouteHandler {
        let auth = WarpLinkAuth(services: services)
        return .inline(
            WarpLinkErrors.guarded(services) { request in
                let project = try auth.project(request)
                let code = try request.parameter("slug")
                // The SDK names the domain the link was opened on: a project domain's links first.
                let openedOn = request.queryItems.first { $0.name == "domain" }.flatMap { PublicHosts.hostName(of: $0.value) }
                // The domain the SDK names, else the project domain the request came to; only the key's project's links.
                guard
                    let (_, target) = try AppOpenLinks.find(
                        code: code, slug: nil, project: project, openedOn: [openedOn, request.hostName], services: services)
                else {
                    // A code of another project is named as such (the SDK shows the key's problem).
                    if let other = try services.app.links.resolve(code: code, slug: nil), other.target.link.projectID != project.id {
                        throw HTTPError.unauthorized("the API key belongs to another project than link '\(code)'")
                    }
                    throw HTTPError.notFound("no active link '\(code)'")
                }
                let now = services.now(for: project)
                switch AppOpenLinks.refusal(target, now: now) {
                case .notFound?: throw HTTPError.notFound("no active link '\(code)'")
                case .passwordProtected?: throw HTTPError(.forbidden, code: "password_required", message: "link '\(code)' is password-protected")
                case nil: break
                }
                let queryItems = request.queryItems
                // `params` is the opened URL's own query, URL-encoded once by the SDK: decoded once
                // above, parsed here.
                let opened = queryItems.first { $0.name == "params" }.map { HTTPRequest.queryItems(of: Substring($0.value)) } ?? []
                let platform = WarpLinkLink.platform(userAgent: request.headers["User-Agent"])
                let utm = target.utm.overridden(by: ClickQuery.utm(opened))
                let tapID = request.headers["X-WarpLink-Tap-Id"].flatMap { Identifiers.isUUID($0) ? $0.lowercased() : nil }
                let clickID = ClickRecorder(services: services).record(
                    at: now, for: request, clickID: tapID.map { Identifiers.clickID(forTap: $0, projectID: project.id) }
                ) { clickID, ip, ipKey in
                    Click(
                        clickID: clickID, projectID: project.id, linkID: target.link.id, source: .app, createdAt: now, ip: ip, ipKey: ipKey,
                        userAgent: request.headers["User-Agent"], acceptLanguage: request.headers["Accept-Language"],
                        query: ClickQuery.kept(opened), utm: utm, platform: platform, isBot: false,
                        languages: Click.languages(fromAcceptLanguage: request.headers["Accept-Language"]),
                        networkClickID: NetworkClickID.find(in: opened, extraParameters: target.project.clickIDParameters))
                }
                let parameters = Dictionary(
                    opened.filter { !$0.name.hasPrefix("utm_") && !$0.name.isEmpty }
                        .prefix(50).map { ($0.name.prefix(characters: 64), $0.value.prefix(characters: 512)) }
                ) { first, _ in first }
                let base = LinkURLs.base(of: target.link, otherwise: LinkURLs.base(for: request, services: services))
                let domain =
                    queryItems.first { $0.name == "domain" }.flatMap { PublicHosts.hostName(of: $0.value) }
                    ?? URLQuery.host(of: base) ?? "localhost"
                var response = HTTPResponse.json(
                    bytes: JSONValue.object(
                        WarpLinkLink.fields(target, parameters: parameters, domain: domain, base: base, platform: platform)
                    ).serialized())
                response.headers.add("X-Click-Id", clickID)
                return response
            })
    }

    /// `POST /v1/attribution/match`
    static func match(_ services: Services) -> RouteHandler {
        let auth = WarpLinkAuth(services: services)
        return .deferred { request, done in
            @Sendable func fail(_ error: any Error) {
                if error is MoveToPool { return done(.failure(error)) }
                done(.success(WarpLinkErrors.response(for: error, request: request, services: services)))
            }
            do {
                let project = try auth.project(request)
                let body = try MatchRequest(JSONFields(request))
                let report = body.report(project: project, request: request, services: services)
                let base = LinkURLs.base(for: request, services: services)
                try services.app.installs.report(report, project: project, conversionValues: false, delivery: request.writeDelivery) { result in
                    do {
                        let outcome = try result.get()
                        if outcome.isNew { services.metrics.recordInstall(matchType: outcome.install.match.matchType.rawValue) }
                        let fields = matchFields(outcome, project: project, platform: body.platform, base: base)
                        done(.success(.json(bytes: JSONValue.object(fields).serialized())))
                    } catch {
                        fail(error)
                    }
                }
            } catch {
                fail(error)
            }
        }
    }

    /// The match answer: `matched` and `install_id` always; the rest only for an attributed
    /// install, the link's fields only while the link exists.
    static func matchFields(
        _ outcome: InstallOutcome, project: Project, platform: UserAgentInfo.Platform,
        base: String
    ) -> [String: JSONValue] {
        let match = outcome.install.match
        var fields: [String: JSONValue] = ["matched": .bool(match.attributed), "install_id": .string(outcome.install.id)]
        guard match.attributed else { return fields }
        fields["match_type"] = .string(match.matchType.rawValue)
        fields["match_confidence"] = .number(match.confidence)
        fields["match_guaranteed"] = .bool(match.matchType == .deterministic)
        if let target = CampaignData.target(of: outcome, project: project) {
            fields["link_id"] = .string(target.link.id)
            if let destination = WarpLinkLink.destination(target, platform: platform) { fields["destination_url"] = .string(destination) }
            fields["deep_link_url"] = .string(target.deepLink(base: LinkURLs.base(of: target.link, otherwise: base)))
            fields["custom_params"] = .object(target.deepLinkParameters.mapValues(JSONValue.string))
        }
        return fields
    }

    /// `POST /v1/links`: 201 with the link in the resolve shape and its short `url`.
    static func createLink(_ services: Services) -> RouteHandler {
        let auth = WarpLinkAuth(services: services)
        let linkService = services.app.links
        return .sync(
            WarpLinkErrors.guarded(services) { request in
                let project = try auth.project(request)
                let payload = try WarpLinkLinkPayload(JSONFields(request))
                var link = Link(id: Identifiers.newID(), projectID: project.id, shortCode: "", createdAt: services.now(for: project))
                payload.apply(to: &link)
                let created = try linkService.create(link, codeIsCustom: false, fieldNames: WarpLinkLinkPayload.fieldNames)
                let target = LinkTarget(link: created, template: nil, project: project.settings)
                let base = LinkURLs.base(of: created, otherwise: LinkURLs.base(for: request, services: services))
                var fields = WarpLinkLink.fields(
                    target, parameters: [:], domain: URLQuery.host(of: base) ?? "localhost", base: base,
                    platform: nil)
                fields["url"] = .string(LinkURLs.url(base: base, shortCode: created.shortCode, templateSlug: nil))
                return .json(bytes: JSONValue.object(fields).serialized(), status: .created)
            })
    }
}
