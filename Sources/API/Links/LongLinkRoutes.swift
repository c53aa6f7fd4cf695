import App
import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts

/// `GET /?link=…&apn=…&ibi=…` on a project domain: Firebase Dynamic Links' long links, built by
/// hand and printed in emails and QR codes, keep working once the domain points here. Each
/// distinct long link is kept as a link of its own on that domain (made at its first tap, its
/// code derived from its parameters), so that its clicks are recorded, attributed and counted like
/// any other link's, and its deep link is what the app receives on install.
enum LongLinkRoutes {
    /// The most long links one domain keeps: each distinct one is a link row made at its first
    /// tap, and anyone can vary a long link's parameters.
    static let maxLongLinksPerDomain = 10_000

    /// `GET /`: a long link on a project domain; elsewhere (or without `link`) the dashboard.
    static func root(_ services: Services, home: String?) -> RouteHandler {
        .sync { request in
            if let host = try ProjectHosts.claim(of: request, services: services), request.queryValue("link") != nil {
                return try longLink(request, on: host, services: services)
            }
            guard let home else { return Pages.notFound }
            return HTTPResponse(status: .found, headers: ["Location": home, "Cache-Control": "no-store"])
        }
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
        let kept = parameters.filter {
            FDLOptions.parameterNames.contains($0.key) || ["st", "sd", "si"].contains($0.key) || $0.key.hasPrefix("utm_")
        }
        let code =
            "fdl" + String(Secrets.sha256Hex(kept.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")).prefix(20))
        if try services.app.links.resolve(code: code, slug: nil, on: host) == nil {
            guard try services.app.links.count(projectID: project.id, domain: host.domain, codePrefix: "fdl") < maxLongLinksPerDomain else {
                throw HTTPError(
                    .unprocessableContent, code: "too_many_long_links",
                    message:
                        "\(host.domain) keeps at most \(maxLongLinksPerDomain) distinct long links; create short links instead (POST /v1/shortLinks)")
            }
            var link = Link(
                id: Identifiers.newID(), projectID: project.id, shortCode: code, title: "Long link: \(options.link.prefix(characters: 200))",
                originalURL: options.link,
                utm: UTM(
                    Dictionary(parameters.filter { $0.key.hasPrefix("utm_") }.map { (String($0.key.dropFirst(4)), $0.value) }) { first, _ in first }),
                og: Link.OpenGraph(title: parameters["st"], description: parameters["sd"], image: parameters["si"]),
                createdAt: services.now(for: project), domain: host.domain, fdl: options)
            link.utm = UTM(link.utm.map.filter { LinkTemplate.utmKeys.contains($0.key) })
            do {
                _ = try services.app.links.create(link, codeIsCustom: true)
            } catch StoreError.conflict {
                // Another tap made it first.
            }
        }
        if request.queryValue("d") == "1" {
            guard let (_, target) = try services.app.links.resolve(code: code, slug: nil, on: host) else { return Pages.notFound }
            return LinkDebugPage.response(target, url: "https://\(host.domain)/?\(request.query ?? "")")
        }
        return try ClickRoutes.click(request, code: code, slug: nil, services: services)
    }
}
