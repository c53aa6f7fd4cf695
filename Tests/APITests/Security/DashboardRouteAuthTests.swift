import Foundation
import HTTP
import TestSupport
import Testing

@testable import API

/// Every dashboard route, walked from the URL map and checked against the access its line in the
/// route table names (`DashboardAccess`): without a session every non-public route sends the
/// browser to sign-in; a viewer gets 403 on every route only the project's admins may use; and a
/// session of one project gets 404 for every route of another project's id.
@Suite struct DashboardRouteAuthTests {
    static let prefix = "/dashboard"

    @Test func everyDashboardRouteChecksTheSessionTheRoleAndTheProject() throws {
        let app = try TestApp()
        let mine = try #require(try app.createProject("Mine")["id"] as? String)
        let theirs = try #require(try app.createProject("Theirs")["id"] as? String)
        let admin = DashboardClient(app)
        try admin.signInWithAdminKey()
        let settings = "/projects/\(mine)/settings"
        let added = try admin.submit(
            from: settings, to: settings + "/users", [("email", "viewer@example.com"), ("password", "correct horse battery"), ("role", "viewer")])
        #expect(added.status == 201)
        let viewer = DashboardClient(app)
        try viewer.signIn(email: "viewer@example.com", password: "correct horse battery")
        let csrf = try #require(DashboardClient.csrfToken(in: try viewer.get("/projects/\(mine)").bodyText))

        let table = DashboardRoutes.routes(app.services)
        let mapped = RouteAuthTests.routes(app).filter { $0.pattern == Self.prefix || $0.pattern.hasPrefix(Self.prefix + "/") }
        #expect(mapped.count == table.count && table.count >= 40, "\(mapped.count) routes in the URL map, \(table.count) in the table")
        let anonymous = DashboardClient(app)
        for route in table {
            let name = "\(route.method) \(route.path)"
            #expect(mapped.contains { $0.method == route.method && $0.pattern == Self.prefix + route.path }, "\(name) is not in the URL map")
            func path(project: String) -> String { RouteAuthTests.path(route.path.replacingOccurrences(of: ":id", with: project)) }
            func send(_ client: DashboardClient, project: String) throws -> TestResponse {
                route.method == .get ? try client.get(path(project: project)) : try client.post(path(project: project), [("csrf", csrf)])
            }
            // Without a session.
            let alone = try send(anonymous, project: mine)
            if route.access == .anyone {
                #expect(alone.header("Location") != Self.prefix + "/sign-in", "\(name) is public by its table line")
            } else {
                #expect(alone.status == 303 && alone.header("Location") == Self.prefix + "/sign-in", "\(name) without a session: \(alone.status)")
            }
            guard route.access == .projectReader || route.access == .projectAdmin else { continue }
            // A viewer of this project: refused where only admins may go, let in where readers may.
            let own = try send(viewer, project: mine)
            if route.access == .projectAdmin {
                #expect(own.status == 403, "\(name) as a viewer: \(own.status)")
            } else {
                #expect(own.status != 403 && own.header("Location") != Self.prefix + "/sign-in", "\(name) as a viewer: \(own.status)")
            }
            // Another project's id: as if it did not exist.
            let other = try send(viewer, project: theirs)
            #expect(other.status == 404, "\(name) for another project: \(other.status)")
        }
        #expect(try app.count("SELECT count(*) FROM links") == 0, "no refused request wrote anything")
    }
}
