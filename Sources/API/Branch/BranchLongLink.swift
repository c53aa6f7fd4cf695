import App
import Attribution
import Cryptography
import HTTP
import JSON
import StoreContracts

/// Branch's long links, `https://<project domain>/?%24deeplink_path=…&channel=…&promo=…`: the
/// link's data in the query (docs/migrate-from-branch.md). Each distinct one becomes a link of its
/// own at its first tap (`brl…`, as FDL's long links are `fdl…`), its data mapped by
/// `BranchLinkFields`, its URLs held to the project's hosts.
enum BranchLongLink {
    static let tags = ["channel", "feature", "campaign", "stage", "tags"]

    /// A query parameter that makes a request to a project domain's root a Branch long link.
    static func isLinkParameter(_ name: String) -> Bool { name.hasPrefix("$") || name.hasPrefix("~") || tags.contains(name) }

    /// The parameters of the tap, not of the link: campaign tags the click records (`utm_*`), ad
    /// networks' click ids, the debug page's `d`.
    static func isTapParameter(_ name: String) -> Bool {
        name.hasPrefix("utm_") || name == "d" || NetworkClickID.standardParameters.contains(name)
    }
}

extension LongLinkRoutes {
    static func branchLongLink(_ request: HTTPRequest, on host: ProjectDomain, services: Services) throws -> HTTPResponse {
        var data: [String: JSONValue] = [:]
        var utm = UTM()
        var kept: [(String, String)] = []
        // As Branch's: every parameter is the link's data, but the tap's own.
        for item in request.queryItems where !BranchLongLink.isTapParameter(item.name) && !kept.contains(where: { $0.0 == item.name }) {
            kept.append((item.name, item.value))
            switch item.name {
            case "channel": utm.source = item.value
            case "feature": utm.medium = item.value
            case "campaign": utm.campaign = item.value
            case "stage": utm.content = item.value
            case "tags": utm.term = item.value
            default: data[item.name] = .string(item.value)
            }
        }
        let project = try services.app.projects.existing(id: host.projectID)
        let urls = ["$fallback_url", "$desktop_url", "$ios_url", "$android_url"].map {
            ($0, data[$0].flatMap { if case .string(let url) = $0 { url } else { nil } })
        }
        if let (name, problem) = try destinationProblem(urls, project: project, services: services) { throw HTTPError.invalidField(name, problem) }
        let code = "brl" + String(Secrets.sha256Hex(kept.sorted { $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")).prefix(20))
        return try serve(request, on: host, code: code, project: project, shortLinks: "POST /v1/url", services: services) {
            var link = Link(
                id: Identifiers.newID(), projectID: project.id, shortCode: code, createdAt: services.now(for: project), domain: host.domain)
            if let problem = BranchLinkFields.apply(data, utm: utm, to: &link) ?? link.validate().first {
                throw HTTPError.invalidField(problem.key, problem.message)
            }
            link.title = "Long link: " + (link.deepLinkPath ?? kept.map { "\($0.0)=\($0.1)" }.joined(separator: "&")).prefix(characters: 200)
            return link
        }
    }
}
