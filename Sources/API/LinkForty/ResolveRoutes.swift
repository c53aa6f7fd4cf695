import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// `GET /api/sdk/v1/resolve/{code}` and `/{templateSlug}/{code}`: the app was opened straight
/// from a universal link; record that as a `resolve` click with the SDK's `fp_*` signals and
/// answer the link's DeepLinkData. The API key names the project, and only its links answer; an
/// open without a key finds the project by the domain it came to, or by the code among links
/// without a domain, and only a project whose `sdk_auth` is `open` answers it.
enum ResolveRoutes {
    /// `GET /api/sdk/v1/resolve/:code`, `GET /api/sdk/v1/resolve/:slug/:code`: on the event loop;
    /// the answer waits for the click's row only while the writer is behind (`ClickCommit`).
    static func route(_ services: Services) -> RouteHandler {
        ClickCommit.route(services) { request, commit in
            try resolve(request, code: request.pathParameters["code"]!, slug: request.pathParameters["slug"], services: services, commit: commit)
        }
    }

    static func noActiveLink(code: String, slug: String?) -> HTTPError {
        HTTPError.notFound("no active link '\(slug.map { "\($0)/" } ?? "")\(code)'")
    }

    static func resolve(_ request: HTTPRequest, code: String, slug: String?, services: Services, commit: ClickCommit? = nil) throws -> HTTPResponse {
        let (project, target) = try link(request, code: code, slug: slug, services: services)
        let now = services.now(for: project)
        switch AppOpenLinks.refusal(target, now: now) {
        case .notFound?: throw noActiveLink(code: code, slug: slug)
        case .passwordProtected?:
            throw HTTPError(.forbidden, code: "password_required", message: "link '\(code)' is password-protected: it opens through its page")
        case nil: break
        }
        var fingerprint: [String: String] = [:]
        let queryItems = request.queryItems
        for item in queryItems where item.name.hasPrefix("fp_") && fingerprint[item.name] == nil {
            fingerprint[item.name] = String(item.value.prefix(128))
        }
        let agent = UserAgentParser.parse(request.headers["User-Agent"])
        let platform = UserAgentInfo.Platform(declared: fingerprint["fp_platform"]) ?? (agent.platform == .bot ? nil : agent.platform)
        let utm = target.utm.overridden(by: ClickQuery.utm(queryItems))
        // Screens from the SDK are native pixels: stored with a pixel ratio of 1, so that
        // width × ratio is pixels for every click.
        let width = fingerprint["fp_sw"].flatMap(Double.init).flatMap { ScreenSize.isPlausibleSide($0) ? $0 : nil }
        let height = fingerprint["fp_sh"].flatMap(Double.init).flatMap { ScreenSize.isPlausibleSide($0) ? $0 : nil }
        let language = fingerprint["fp_lang"].flatMap { LanguageTag.isPlausible($0) ? $0 : nil }
        let clickID = ClickRecorder(services: services).record(at: now, for: request, commit: commit) { clickID, ip, ipKey in
            Click(
                clickID: clickID, projectID: target.link.projectID, linkID: target.link.id, source: .resolve, createdAt: now,
                ip: ip, ipKey: ipKey, userAgent: request.headers["User-Agent"], acceptLanguage: request.headers["Accept-Language"],
                query: ClickQuery.kept(queryItems), utm: utm, platform: platform, osVersion: fingerprint["fp_pv"] ?? agent.osVersion,
                deviceClass: agent.deviceClass, isBot: false, screenWidth: width, screenHeight: height,
                pixelRatio: width == nil && height == nil ? nil : 1,
                timezone: fingerprint["fp_tz"].flatMap { TimeZoneNames.isValid($0) ? $0 : nil },
                languages: language.map { [$0] } ?? Click.languages(fromAcceptLanguage: request.headers["Accept-Language"]),
                networkClickID: NetworkClickID.find(in: queryItems, extraParameters: target.project.clickIDParameters))
        }
        var response = HTTPResponse.json(bytes: DeepLinkData(target: target, utm: utm, clickID: clickID, clickedAt: now).body)
        response.headers.add("X-Click-Id", clickID)
        return response
    }

    /// The project that asks and its link: an API key's project (a wrong key is 401), else the
    /// project of the project domain the request came to, else of the code among links without
    /// a domain; those last two only when the project takes SDK calls without a credential.
    static func link(_ request: HTTPRequest, code: String, slug: String?, services: Services) throws -> (Project, LinkTarget) {
        let auth = LinkFortyAuth(services: services)
        let host = try ProjectHosts.claim(of: request, services: services)
        if BearerToken.from(request) != nil {
            let project = try auth.projectRequiringKey(request)
            guard let (_, target) = try AppOpenLinks.find(code: code, slug: slug, project: project, openedOn: [host?.domain], services: services)
            else { throw noActiveLink(code: code, slug: slug) }
            return (project, target)
        }
        let found = try services.app.links.resolve(code: code, slug: slug, on: host)
        guard let target = found?.target, let project = try services.app.projects.cachedProject(id: target.link.projectID) else {
            throw noActiveLink(code: code, slug: slug)
        }
        try auth.requireOpen(project)
        return (project, target)
    }
}
