import App
import Attribution
import Foundation
import HTTP
import StoreContracts

/// Universal Links and Android App Links verification files, built from every project's app ids.
enum WellKnownRoutes {
    struct AppleAppSiteAssociation: Encodable {
        struct AppLinks: Encodable { let details: [Detail] }
        struct Detail: Encodable {
            let appIDs: [String]
            let components: [Component]
        }
        struct Component: Encodable {
            let path: String
            let exclude: Bool?
            enum CodingKeys: String, CodingKey {
                case path = "/"
                case exclude
            }
        }
        let applinks: AppLinks
    }

    struct AssetStatement: Encodable {
        struct Target: Encodable {
            let namespace: String
            let package_name: String
            let sha256_cert_fingerprints: [String]
        }
        let relation: [String]
        let target: Target
    }

    /// On a project's own domain, that project; on any other Host, every project.
    static func projects(for request: HTTPRequest, _ services: Services) throws -> [Project] {
        guard let claim = try ProjectHosts.claim(of: request, services: services) else { return try services.app.projects.list() }
        return try services.app.projects.find(id: claim.projectID).map { [$0] } ?? []
    }

    /// `GET /.well-known/apple-app-site-association`
    static func appleAppSiteAssociation(_ services: Services) -> RouteHandler {
        return .sync { request in
            guard let body = try appleAppSiteAssociation(for: try projects(for: request, services)) else {
                throw HTTPError.notFound("no project has ios_team_id and ios_bundle_id")
            }
            return served(body)
        }
    }

    /// The file for `projects` (nil when none has an iOS app): what the route serves, and what
    /// the dashboard shows for a domain.
    static func appleAppSiteAssociation(for projects: [Project]) throws -> [UInt8]? {
        let appIDs = projects.compactMap { project -> String? in
            guard let team = project.settings.iosTeamID, let bundle = project.settings.iosBundleID else { return nil }
            return "\(team).\(bundle)"
        }
        guard !appIDs.isEmpty else { return nil }
        // Every path opens the app except the API and these files themselves.
        let components: [AppleAppSiteAssociation.Component] = [
            .init(path: "/api/*", exclude: true), .init(path: "/.well-known/*", exclude: true),
            .init(path: "/c/*", exclude: true), .init(path: "/*", exclude: nil),
        ]
        let body = AppleAppSiteAssociation(applinks: .init(details: [.init(appIDs: appIDs, components: components)]))
        return Array(try JSONCoders.sortedEncoder.encode(body))
    }

    /// `GET /.well-known/assetlinks.json`
    static func assetLinks(_ services: Services) -> RouteHandler {
        return .sync { request in
            guard let body = try assetLinks(for: try projects(for: request, services)) else {
                throw HTTPError.notFound("no project has android_package and android_sha256")
            }
            return served(body)
        }
    }

    /// The file for `projects` (nil when none has an Android app).
    static func assetLinks(for projects: [Project]) throws -> [UInt8]? {
        let statements = projects.compactMap { project -> AssetStatement? in
            guard let package = project.settings.androidPackage, !project.settings.androidSHA256.isEmpty else { return nil }
            return AssetStatement(
                relation: ["delegate_permission/common.handle_all_urls"],
                target: .init(
                    namespace: "android_app", package_name: package,
                    sha256_cert_fingerprints: project.settings.androidSHA256))
        }
        guard !statements.isEmpty else { return nil }
        return Array(try JSONCoders.sortedEncoder.encode(statements))
    }

    private static func served(_ body: [UInt8]) -> HTTPResponse {
        var response = HTTPResponse.json(bytes: body)
        response.headers.set("Cache-Control", "max-age=300")
        return response
    }
}
