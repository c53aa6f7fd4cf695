import App
import Attribution
import Foundation
import HTTP
import StoreContracts
import Synchronization

/// `GET|HEAD /{code}` and `/{templateSlug}/{code}`: record the click, then send the person on
/// (links-and-clicks.md, "Click routes").
enum ClickRoutes {
    /// `GET /:code`, `GET /:slug/:code`. On the event loop: a cache hit does no I/O, and the
    /// click is queued; the answer waits for the row only while the writer is behind
    /// (`ClickCommit`), without holding a thread.
    static func route(_ services: Services) -> RouteHandler {
        ClickCommit.route(services) { request, commit in
            try click(request, code: request.pathParameters["code"]!, slug: request.pathParameters["slug"], services: services, commit: commit)
        }
    }

    /// - Parameter passwordGiven: the link's password was checked (`LinkPasswordRoutes`).
    /// - Parameter commit: armed when the answer is to wait for the click's row.
    static func click(
        _ request: HTTPRequest, code: String, slug: String?, services: Services, passwordGiven: Bool = false, commit: ClickCommit? = nil
    ) throws -> HTTPResponse {
        let host = try ProjectHosts.claim(of: request, services: services)
        guard let (entry, target) = try services.app.links.resolve(code: code, slug: slug, on: host) else {
            return DeadEndPage.response(.notFound, project: try host.flatMap { try services.app.projects.cachedProject(id: $0.projectID) })
        }
        let now = services.app.clocks.now(projectID: target.link.projectID)
        switch LinkAvailability.of(target.link, clicks: entry.clicks.load(ordering: .relaxed), now: now) {
        case .available: break
        case .expired:
            guard let url = target.link.expiredURL else {
                return DeadEndPage.response(.expired, project: try services.app.projects.cachedProject(id: target.link.projectID))
            }
            return HTTPResponse(status: .found, headers: ["Location": url, "Cache-Control": "no-store"])
        case .inactive, .exhausted:
            return DeadEndPage.response(.notFound, project: try services.app.projects.cachedProject(id: target.link.projectID))
        }
        if target.link.passwordHash != nil, !passwordGiven { return LinkPasswordPage.response(for: request) }
        // The debug page lists every destination: only for a link a tap could follow, past its password.
        if request.queryValue("d") == "1" {
            let base = LinkURLs.base(of: target.link, otherwise: LinkURLs.base(for: request, services: services))
            return LinkDebugPage.response(target, url: LinkURLs.url(base: base, shortCode: target.link.shortCode, templateSlug: slug))
        }

        let agent = UserAgentParser.parse(request.headers["User-Agent"])
        // HEAD is what link checkers and preview fetchers send; no person is behind it.
        let isBot = agent.isBot || request.method == .head
        let platform: UserAgentInfo.Platform = isBot ? .bot : agent.platform
        let queryItems = request.queryItems
        let utm = target.utm.overridden(by: ClickQuery.utm(queryItems))
        let acceptLanguage = request.headers["Accept-Language"]
        // The browser's half of an in-app escape: the click was recorded in the webview.
        var continued = isBot ? nil : InAppEscape.continuedClick(request)
        if let claimed = continued {
            // Only a click this server recorded for this link, moments ago, is continued (a read:
            // off the loop; nothing is recorded before it). Another id is a tap of its own.
            try MoveToPool.unlessOffLoop()
            if !(try services.app.clicks.isRecent(
                clickID: claimed, ofLink: target.link.id, projectID: target.link.projectID, maximumAgeSeconds: InAppEscape.maximumAgeSeconds))
            {
                continued = nil
            }
        }
        let country = isBot ? nil : services.countries.country(of: request, resolver: services.clientIP)
        let route = isBot ? TapRoute() : Self.route(target, request: request, agent: agent, country: country, at: now, services: services)
        let escaping =
            continued == nil && !isBot && agent.inAppBrowser != nil && platform != .desktop
            && (target.link.inAppEscape ?? target.project.inAppEscape) && !route.keepsInAppBrowser
        // Read before the click is recorded: a cache miss moves the request off the event loop
        // (it runs again from the start), which must not record the click twice.
        let escapeBase = try escaping ? escapeBase(request, services: services) : nil
        let appName = try escaping ? services.app.projects.cachedProject(id: target.link.projectID)?.name : nil
        let clickID =
            continued
            ?? ClickRecorder(services: services).record(
                at: now, for: request, countTowardLimit: target.link.maxClicks != nil, commit: commit
            ) {
                clickID, ip, ipKey in
                Click(
                    clickID: clickID, projectID: target.link.projectID, linkID: target.link.id, source: .link, createdAt: now,
                    ip: ip, ipKey: ipKey, userAgent: request.headers["User-Agent"], acceptLanguage: acceptLanguage,
                    referer: request.headers["Referer"], query: ClickQuery.kept(queryItems), utm: utm, platform: platform,
                    osVersion: agent.osVersion, deviceClass: agent.deviceClass, isBot: isBot,
                    languages: Click.languages(fromAcceptLanguage: acceptLanguage),
                    networkClickID: NetworkClickID.find(in: queryItems, extraParameters: target.project.clickIDParameters),
                    variant: route.variant?.name, country: country)
            }
        if !isBot, continued == nil { entry.clicks.add(1, ordering: .relaxed) }
        if escaping, let browser = agent.inAppBrowser, let base = escapeBase {
            let url = InAppEscape.continuation(of: request, base: base, clickID: clickID)
            if platform == .android { return InAppEscape.android(url, clickID: clickID) }
            let here: String
            switch target.response(for: platform, clickID: clickID, utm: utm, iPad: agent.deviceClass == .ipad, routed: route.url) {
            case .interstitial(let destination, _), .redirect(let destination): here = destination
            default: here = url
            }
            return InAppEscape.iOS(url, appName: appName ?? "the app", browser: browser, here: here, clickID: clickID)
        }

        let clickHeader: HTTPHeaders = ["X-Click-Id": clickID]
        switch target.response(for: platform, clickID: clickID, utm: utm, iPad: agent.deviceClass == .ipad, routed: route.url) {
        case .interstitial(let destination, let appURL):
            let nonce = Identifiers.nonce()
            var headers = clickHeader
            headers.add("Content-Security-Policy", Pages.interstitialPolicy(nonce: nonce))
            headers.add("Referrer-Policy", "no-referrer")
            return Pages.htmlResponse(
                bytes: Pages.interstitial(clickID: clickID, destination: destination, appURL: appURL, nonce: nonce),
                headers: headers)
        case .redirect(let destination):
            var headers = clickHeader
            headers.add("Location", destination)
            headers.add("Cache-Control", "no-store")
            return HTTPResponse(status: .found, headers: headers)
        case .preview:
            let url = LinkURLs.url(
                base: LinkURLs.base(of: target.link, otherwise: LinkURLs.base(for: request, services: services)), shortCode: target.link.shortCode,
                templateSlug: slug)
            return Pages.htmlResponse(Pages.preview(target: target, url: url), headers: clickHeader)
        case .noDestination:
            // The click is queued: nothing here may read the store (and run the handler again).
            return DeadEndPage.response(
                .noDestination, name: services.app.projects.projectIfCached(id: target.link.projectID)?.name, settings: target.project,
                headers: ["X-Click-Id": clickID])
        }
    }

    /// What the link's rules and A/B split decide for this tap; nothing to decide for most links.
    static func route(
        _ target: LinkTarget, request: HTTPRequest, agent: UserAgentInfo, country: String?, at now: Timestamp, services: Services
    ) -> TapRoute {
        guard !target.link.rules.isEmpty || !target.link.variants.isEmpty else { return TapRoute() }
        let userAgent = request.headers["User-Agent"]
        let tap = Tap(
            platform: TapPlatform.of(agent, userAgent: userAgent), osVersion: agent.osVersion,
            languages: Click.languages(fromAcceptLanguage: request.headers["Accept-Language"]), country: country,
            inAppBrowser: agent.inAppBrowser, time: now)
        // The visitor a variant sticks to: the client's network key, as the click stores it.
        let visitor = target.link.variants.isEmpty ? "" : services.clientIP.clientAddress(of: request)?.matchingKey ?? ""
        return target.route(tap, visitor: visitor)
    }

    /// Where the system browser is sent back to: the project domain the tap came to (HTTPS),
    /// else this server's public base.
    static func escapeBase(_ request: HTTPRequest, services: Services) throws -> String {
        if let claim = try ProjectHosts.claim(of: request, services: services) { return "https://\(claim.domain)" }
        return LinkURLs.base(for: request, services: services)
    }
}
