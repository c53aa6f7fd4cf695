import Foundation
import HTTP
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// Every route the URL map registers, walked from the map itself: a route added later is covered
/// without a line here. Admin routes answer 401 without the admin key or with a wrong one; SDK
/// routes answer 401 without a credential, except the few that are public by contract.
@Suite struct RouteAuthTests {
    /// SDK routes any client may call without a credential, with the reason.
    static let publicSDKRoutes: [String: String] = [
        "GET /api/sdk/v1/health": "LinkForty's SDK checks the server before it has a key",
        "GET /api/sdk/v1/resolve/:code": "the app resolves the link that opened it; a click, like a tap",
        "GET /api/sdk/v1/resolve/:slug/:code": "the same, with a template slug",
    ]

    /// Routes that answer a missing credential in another API's own shape.
    static let otherShapes: [String: Int] = [
        "POST /v1/shortLinks": 403  // Firebase Dynamic Links' REST API: Google's PERMISSION_DENIED
    ]

    /// LinkForty's credential may ride in the body (`appToken`), so those routes read the body
    /// before they can authenticate: they get a body that parses, naming an install that exists.
    static func bodies(installID: String) -> [String: String] {
        [
            "POST /api/sdk/v1/install": #"{"userAgent":"Shop/1.0 iOS/17.4"}"#,
            "POST /api/sdk/v1/event": #"{"installId":"\#(installID)","eventName":"purchase"}"#,
        ]
    }

    static func routes(_ app: TestApp) -> [(method: HTTPMethod, pattern: String)] {
        Application.routerBuilder(services: app.services).routes
    }

    /// The pattern with each parameter filled: enough to reach the route, never an existing row.
    static func path(_ pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "x\($0.dropFirst())" : String($0) }.joined(separator: "/")
    }

    @Test func everyAdminRouteRefusesAMissingOrWrongKey() throws {
        // A client address per request: the failure budget (429 after ten) is another test's subject.
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        var client = 0
        let admin = Self.routes(app).filter { $0.pattern.hasPrefix("/admin/v1") }
        #expect(admin.count >= 40, "the walk reads the URL map: \(admin.count) admin routes")
        for route in admin {
            for key in [nil, "not-the-admin-key-\(UUID().uuidString)"] {
                client += 1
                let response = try app.request(
                    route.method.description, Self.path(route.pattern), json: route.method == .get ? nil : "{}", adminKey: key,
                    headers: ["X-Forwarded-For": "198.51.\(client / 250).\(client % 250 + 1)"])
                #expect(response.status == 401, "\(route.method) \(route.pattern) with \(key == nil ? "no key" : "a wrong key"): \(response.status)")
                #expect(response.header("WWW-Authenticate") == "Bearer", "\(route.pattern)")
            }
        }
        #expect(try app.count("SELECT count(*) FROM projects") == 0, "no refused request wrote anything")
    }

    @Test func everySDKRouteRefusesARequestWithoutACredential() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, key, _) = try app.projectWithLink()
        let installID = try #require(try app.install(ip: "203.0.113.80", key: key).json?["installId"] as? String)
        let bodies = Self.bodies(installID: installID)
        let sdk = Self.routes(app).filter { route in ["/api/", "/v1/"].contains { route.pattern.hasPrefix($0) } }
        #expect(sdk.count >= 25, "\(sdk.count) SDK routes")
        for route in sdk where Self.publicSDKRoutes["\(route.method) \(route.pattern)"] == nil {
            let body = bodies["\(route.method) \(route.pattern)"] ?? (route.method == .get ? nil : "{}")
            let response = try app.request(route.method.description, Self.path(route.pattern), json: body, adminKey: nil)
            let expected = Self.otherShapes["\(route.method) \(route.pattern)"] ?? 401
            #expect(response.status == expected, "\(route.method) \(route.pattern): \(response.status) \(response.bodyText)")
        }
        #expect(
            try app.count("SELECT count(*) FROM installs") == 1 && app.count("SELECT count(*) FROM events") == 0
                && app.count("SELECT count(*) FROM links") == 1, "no refused request wrote anything")
        for (route, _) in Self.publicSDKRoutes {
            #expect(sdk.contains { "\($0.method) \($0.pattern)" == route }, "\(route) is still a route")
        }
    }
}
