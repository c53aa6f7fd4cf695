import App
import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts

/// `GET /?link=…&apn=…&ibi=…` on a project domain: Firebase Dynamic Links' long links, and
/// `GET /?%24deeplink_path=…&channel=…` Branch's, built by hand and printed in emails and QR
/// codes, keep working once the domain points here. Each distinct long link is kept as a link of
/// its own on that domain (made at its first tap, its code derived from its parameters), so that
/// its clicks are recorded, attributed and counted like any other link's, and its deep link is
/// what the app receives on install.
enum LongLinkRoutes {
    /// New long links one client may have made: 20 at once, then one every 6 s. Each distinct long
    /// link is a link row made at its first tap, and anyone can vary a long link's parameters.
    static let mintingBudget = RateLimitSettings(ratePerSecond: 1.0 / 6, burst: 20)

    /// `GET /`: a long link on a project domain; elsewhere (or without `link`) the dashboard.
    static func root(_ services: Services, home: String?) -> RouteHandler {
        .sync { request in
            if let host = try ProjectHosts.claim(of: request, services: services) {
                if request.queryValue("link") != nil { return try longLink(request, on: host, services: services) }
                if request.queryItems.contains(where: { BranchLongLink.isLinkParameter($0.name) }) {
                    return try branchLongLink(request, on: host, services: services)
                }
            }
            guard let home else { return DeadEndPage.response(.notFound, project: nil) }
            return HTTPResponse(status: .found, headers: ["Location": home, "Cache-Control": "no-store"])
        }
    }

    /// The first of the long link's URLs that goes where the project does not vouch for
    /// (`LongLinkPolicy`), as (parameter, problem); nil when all may be followed. Anyone can write
    /// a long link on the domain, and an app's API key is public: both are held to this.
    static func destinationProblem(_ options: FDLOptions, project: Project, services: Services) throws -> (String, String)? {
        try destinationProblem(
            [
                ("link", options.link), ("afl", options.androidFallback), ("ifl", options.iosFallback), ("ipfl", options.iPadFallback),
                ("ofl", options.otherFallback),
            ], project: project, services: services)
    }

    /// The same for a long link's URLs named as its parameters are.
    static func destinationProblem(_ urls: [(String, String?)], project: Project, services: Services) throws -> (String, String)? {
        let allowedHosts =
            try services.app.domains.names(ofProject: project.id)
            + [project.settings.webURL, project.settings.iosStoreURL, project.settings.androidStoreURL].compactMap { $0.flatMap(URLQuery.host(of:)) }
        for (name, url) in urls {
            if let url, let problem = LongLinkPolicy.problem(url, allowedHosts: allowedHosts, patterns: project.settings.longLinkHosts) {
                return (name, problem)
            }
        }
        return nil
    }

    static func longLink(_ request: HTTPRequest, on host: ProjectDomain, services: Services) throws -> HTTPResponse {
        var parameters: [String: String] = [:]
        for item in request.queryItems where parameters[item.name] == nil { parameters[item.name] = item.value }
        let options: FDLOptions
        switch FDLOptions.parse(parameters) {
        case .success(let parsed): options = parsed
        case .failure(let refusal): throw HTTPError.invalidField(refusal.problem.key, refusal.problem.message)
        }
        let project = try services.app.projects.existing(id: host.projectID)
        // A long link names the project's own apps (when the project has them): nobody else's.
        if let apn = options.androidPackage, let own = project.settings.androidPackage, apn != own {
            throw HTTPError.invalidField("apn", "'\(apn.prefix(characters: 100))' is not this domain's Android app")
        }
        if let ibi = options.iosBundleID, let own = project.settings.iosBundleID, ibi != own {
            throw HTTPError.invalidField("ibi", "'\(ibi.prefix(characters: 100))' is not this domain's iOS app")
        }
        if let (name, problem) = try destinationProblem(options, project: project, services: services) { throw HTTPError.invalidField(name, problem) }
        let kept = parameters.filter {
            FDLOptions.parameterNames.contains($0.key) || ["st", "sd", "si"].contains($0.key) || $0.key.hasPrefix("utm_")
        }
        let code =
            "fdl" + String(Secrets.sha256Hex(kept.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")).prefix(20))
        return try serve(request, on: host, code: code, project: project, shortLinks: "POST /v1/shortLinks", services: services) {
            var link = Link(
                id: Identifiers.newID(), projectID: project.id, shortCode: code, title: "Long link: \(options.link.prefix(characters: 200))",
                originalURL: options.link,
                utm: UTM(
                    Dictionary(parameters.filter { $0.key.hasPrefix("utm_") }.map { (String($0.key.dropFirst(4)), $0.value) }) { first, _ in first }),
                og: Link.OpenGraph(title: parameters["st"], description: parameters["sd"], image: parameters["si"]),
                createdAt: services.now(for: project), domain: host.domain, fdl: options)
            link.utm = UTM(link.utm.map.filter { LinkTemplate.utmKeys.contains($0.key) })
            return link
        }
    }

    /// A long link's own link (`code`, made by `make` at its first tap, within the domain's
    /// limit and the client's minting budget), then the tap as any link's (`?d=1` its debug page).
    static func serve(
        _ request: HTTPRequest, on host: ProjectDomain, code: String, project: Project, shortLinks: String, services: Services,
        make: () throws -> Link
    ) throws -> HTTPResponse {
        let prefix = String(code.prefix(3))
        if try services.app.links.resolve(code: code, slug: nil, on: host) == nil {
            let limit = project.settings.longLinksPerDomain
            guard try services.app.links.count(projectID: project.id, domain: host.domain, codePrefix: prefix) < limit else {
                throw HTTPError(
                    .unprocessableContent, code: "too_many_long_links",
                    message:
                        "\(host.domain) keeps at most \(limit) distinct long links (the project's long_links_per_domain); "
                        + "create short links instead (\(shortLinks))")
            }
            // Each new one is a row: one client makes a few a minute at most, so a script cannot fill the domain.
            let client = services.clientIP.clientAddress(of: request)?.clientKey ?? .unknown
            if let wait = services.longLinkMinting.retryAfter(client: client, now: DispatchTime.now().uptimeNanoseconds) {
                throw HTTPError(
                    .tooManyRequests, code: "rate_limited", message: "too many new long links from your network; try again later",
                    headers: ["Retry-After": String(retryAfterSeconds(wait))])
            }
            let link = try make()
            do {
                _ = try services.app.links.create(link, codeIsCustom: true)
            } catch StoreError.conflict {
                // Another tap made it first.
            }
        }
        if request.queryValue("d") == "1" {
            guard let (_, target) = try services.app.links.resolve(code: code, slug: nil, on: host) else {
                return DeadEndPage.response(.notFound, project: try services.app.projects.cachedProject(id: host.projectID))
            }
            return LinkDebugPage.response(target, url: "https://\(host.domain)/?\(request.query ?? "")")
        }
        return try ClickRoutes.click(request, code: code, slug: nil, services: services)
    }
}
