import App
import Attribution
import Foundation
import HTTP
import JSON
import StoreContracts

/// Branch's SDK API (docs/sdk-apis.md, "Branch"): a session per app start (`/v1/install`, then
/// `/v1/open`), events (`/v2/event/standard`, `/v2/event/custom`), links (`/v1/url`), the user's
/// identity (`/v1/profile`, `/v1/logout`), and the calls the SDKs make around them answered as
/// Branch does. Every refusal is Branch's `{"error": {"code", "message"}}`.
enum BranchRoutes {
    /// `POST /v1/install`: the app's first start. The install is matched like any other; the
    /// answer's `data` carries the link it came from (the deferred deep link), once.
    static func install(_ services: Services) -> RouteHandler { session(services, isInstall: true) }

    /// `POST /v1/open`: every later start. Opened through one of the project's links, the answer
    /// carries it and the open is a click of it; otherwise `+clicked_branch_link` is false.
    static func open(_ services: Services) -> RouteHandler { session(services, isInstall: false) }

    private static func session(_ services: Services, isInstall: Bool) -> RouteHandler {
        let auth = BranchAuth(services: services)
        // On the event loop, as LinkForty's install: a lookup that misses its cache moves the
        // request to the pool (MoveToPool) before anything is written, the click of an opened link last.
        return .deferred { request, done in
            let answer = BranchErrors.completing(request, services, done)
            do {
                let body = try BranchSessionRequest(JSONFields(request))
                // `setIdentity` sends the user id with every session: setting it writes and waits.
                if body.developerIdentity != nil { try MoveToPool.unlessOffLoop() }
                let project = try auth.project(key: body.branchKey)
                let base = LinkURLs.base(for: request, services: services)
                // A later start of a known install reports nothing new: the install is the one the
                // first answer named.
                let known = try body.bundleToken.flatMap { isInstall ? nil : try services.app.projects.owner(ofInstall: $0) == project.id ? $0 : nil }
                let opened = try body.openedURL.flatMap {
                    try openedLink($0, platform: body.platform, project: project, request: request, services: services)
                }
                if let known {
                    if let identity = body.developerIdentity { try services.app.activity.updateInstall(known, userID: identity) }
                    let data = BranchLinkData.session(
                        link: opened, firstSession: false, guaranteed: true, clickedAt: opened.map { _ in services.now(for: project) })
                    return answer(.success(sessionAnswer(installID: known, data: data, base: base)))
                }
                let report = body.report(project: project, request: request, services: services)
                let finish: @Sendable (Result<InstallOutcome, any Error>) -> Void = { result in
                    answer(
                        Result {
                            let outcome = try result.get()
                            if let identity = body.developerIdentity {
                                try services.app.activity.updateInstall(outcome.install.id, userID: identity)
                            }
                            if outcome.isNew { services.metrics.recordInstall(matchType: outcome.install.match.matchType.rawValue) }
                            let match = outcome.install.match
                            var link = opened
                            var guaranteed = opened != nil
                            var clickedAt = opened.map { _ in report.signals.time }
                            if link == nil, isInstall, outcome.isNew, match.attributed,
                                let target = CampaignData.target(of: outcome, project: project)
                            {
                                let targetBase = LinkURLs.base(of: target.link, otherwise: base)
                                link = (
                                    target, LinkURLs.url(base: targetBase, shortCode: target.link.shortCode, templateSlug: target.templateSlug)
                                )
                                guaranteed = match.matchType == .deterministic
                                clickedAt = match.clickedAt
                            }
                            let data = BranchLinkData.session(link: link, firstSession: isInstall, guaranteed: guaranteed, clickedAt: clickedAt)
                            return sessionAnswer(installID: outcome.install.id, data: data, base: base)
                        })
                }
                try services.app.installs.report(report, project: project, conversionValues: false, delivery: request.writeDelivery) { result in
                    // The user id's write waits for the writer: never on the writer's own completion.
                    let next: @Sendable () -> Void = {
                        if body.developerIdentity != nil { DispatchQueue.global().async { finish(result) } } else { finish(result) }
                    }
                    guard case .success(let outcome) = result, body.appleAttributionToken != nil else { return next() }
                    // The token's exchange with Apple is queued before the answer, as Linkrunner's
                    // init queues it; a token that cannot be kept never fails the session.
                    services.app.appleAds.capture(
                        body.appleAttributionToken, installID: outcome.install.id, project: project, at: report.signals.time,
                        delivery: request.writeDelivery
                    ) { _ in next() }
                }
            } catch {
                answer(.failure(error))
            }
        }
    }

    /// The link of a URL the app was opened with, when it is one of the project's (recorded as a
    /// click of it, the app's own open); nil for any other URL.
    private static func openedLink(
        _ url: String, platform: UserAgentInfo.Platform?, project: Project, request: HTTPRequest, services: Services
    ) throws -> (target: LinkTarget, shortURL: String)? {
        guard let components = URLComponents(string: url), ["http", "https"].contains(components.scheme?.lowercased() ?? "") else { return nil }
        let segments = components.path.split(separator: "/").map(String.init)
        guard (1...2).contains(segments.count) else { return nil }
        let (slug, code) = segments.count == 2 ? (segments[0], segments[1]) : (nil, segments[0])
        guard let (_, target) = try AppOpenLinks.find(code: code, slug: slug, project: project, openedOn: [components.host], services: services),
            AppOpenLinks.refusal(target, now: services.now(for: project)) == nil
        else { return nil }
        let now = services.now(for: project)
        let queryItems = (components.percentEncodedQuery).map { HTTPRequest.queryItems(of: Substring($0)) } ?? []
        _ = ClickRecorder(services: services).record(at: now, for: request) { clickID, ip, ipKey in
            Click(
                clickID: clickID, projectID: project.id, linkID: target.link.id, source: .app, createdAt: now, ip: ip, ipKey: ipKey,
                userAgent: request.headers["User-Agent"], acceptLanguage: request.headers["Accept-Language"], query: ClickQuery.kept(queryItems),
                utm: target.utm.overridden(by: ClickQuery.utm(queryItems)), platform: platform, isBot: false,
                languages: Click.languages(fromAcceptLanguage: request.headers["Accept-Language"]),
                networkClickID: NetworkClickID.find(in: queryItems, extraParameters: target.project.clickIDParameters))
        }
        let base = LinkURLs.base(of: target.link, otherwise: LinkURLs.base(for: request, services: services))
        return (target, LinkURLs.url(base: base, shortCode: target.link.shortCode, templateSlug: target.templateSlug))
    }

    /// What the SDKs keep from a session: the install id as both tokens (the newer names and
    /// the older ones), a session id, the user's link (this server's base: a `$identity_id` in
    /// it would make every tap of it a long link of its own), and `data` as a JSON string. Written by
    /// hand, keys in order: every app start answers this.
    static func sessionAnswer(installID: String, data: JSONValue, base: String) -> HTTPResponse {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1024)
        var object = JSONObjectWriter(into: &bytes)
        object.string("data", String(decoding: data.serialized(), as: UTF8.self), to: &bytes)
        object.string("device_fingerprint_id", installID, to: &bytes)
        object.string("identity_id", installID, to: &bytes)
        object.string("link", base, to: &bytes)
        object.string("randomized_bundle_token", installID, to: &bytes)
        object.string("randomized_device_token", installID, to: &bytes)
        object.string("session_id", Identifiers.newID(), to: &bytes)
        object.close(&bytes)
        return .json(bytes: bytes)
    }
}
