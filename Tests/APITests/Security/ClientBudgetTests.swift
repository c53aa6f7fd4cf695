import Foundation
import HTTP
import TestSupport
import Testing

@testable import API

/// Every per-client budget counts an IPv6 client by its /64, which one subscriber or host holds
/// whole: addresses of one /64 behind a trusted proxy share one budget. Found by an outside test:
/// 40 addresses of one /64 got 400 admin-key guesses evaluated, 400 addresses all passed the
/// public limit, 60 addresses' password guesses delayed a real sign-in.
@Suite struct ClientBudgetTests {
    /// The `index`th address of 2001:db8:1:2::/64.
    static func sameNetwork(_ index: Int) -> String { "2001:db8:1:2:\(String(index, radix: 16)):0:0:1" }
    static let otherNetwork = "2001:db8:1:3::1"

    @Test func adminKeyGuessesFromOneIPv6NetworkShareOneBudget() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let statuses = try (1...40).map { index in
            try app.request("GET", "/admin/v1/projects", adminKey: "wrong-key-0123456789abc", headers: ["X-Forwarded-For": Self.sameNetwork(index)])
                .status
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 } && statuses.dropFirst(10).allSatisfy { $0 == 429 }, "\(statuses)")
        #expect(try app.request("GET", "/admin/v1/projects", headers: ["X-Forwarded-For": Self.sameNetwork(99)]).status == 429)
        #expect(try app.request("GET", "/admin/v1/projects", headers: ["X-Forwarded-For": Self.otherNetwork]).status == 200)
    }

    @Test func theDashboardsAdminKeySignInSpendsTheAdminAPIsBudget() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let browser = DashboardClient(app)
        for index in 1...10 {
            let refused = try browser.post("/sign-in", [("admin_key", "wrong-key-\(index)")], headers: ["X-Forwarded-For": Self.sameNetwork(index)])
            #expect(refused.status == 401)
        }
        // The same budget at the other door, for the whole /64, the right key included.
        #expect(try app.request("GET", "/admin/v1/projects", headers: ["X-Forwarded-For": Self.sameNetwork(50)]).status == 429)
        #expect(try browser.post("/sign-in", [("admin_key", TestApp.adminKey)], headers: ["X-Forwarded-For": Self.sameNetwork(51)]).status == 429)
        #expect(try app.request("GET", "/admin/v1/projects", headers: ["X-Forwarded-For": Self.otherNetwork]).status == 200)
    }

    @Test func passwordGuessesFromOneIPv6NetworkShareOneBudgetAndDoNotHoldUpARealSignIn() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        let admin = DashboardClient(app)
        try admin.signInWithAdminKey()
        let settings = "/projects/\(projectID)/settings"
        #expect(
            try admin.submit(
                from: settings, to: settings + "/users",
                [("email", "viewer@example.com"), ("password", "correct horse battery"), ("role", "viewer")]
            ).status == 201)
        let guesser = DashboardClient(app)
        let started = Date()
        let statuses = try (1...30).map { index in
            try guesser.post(
                "/sign-in", [("email", "viewer@example.com"), ("password", "guess \(index)")],
                headers: ["X-Forwarded-For": Self.sameNetwork(index)]
            ).status
        }
        // Ten tries, then 429, but for the tries the budget earns back meanwhile (one per 6 s:
        // under load each wrong password's hash takes seconds).
        let earned = Int(Date().timeIntervalSince(started) * AdminAuth.failureBudget.ratePerSecond) + 1
        let afterTen = statuses.dropFirst(10)
        #expect(statuses.prefix(10).allSatisfy { $0 == 401 } && afterTen.allSatisfy { $0 == 429 || $0 == 401 }, "\(statuses)")
        #expect(afterTen.filter { $0 == 401 }.count <= earned && afterTen.filter { $0 == 429 }.count >= 20 - earned, "\(statuses), \(earned) earned")
        // Refused before any hashing (a 429 never waits for PBKDF2), so another network's real
        // sign-in goes through at once; not timed here (shared machines), only answered.
        let viewer = DashboardClient(app)
        let signedIn = try viewer.post(
            "/sign-in", [("email", "viewer@example.com"), ("password", "correct horse battery")],
            headers: ["X-Forwarded-For": Self.otherNetwork])
        #expect(signedIn.status == 303)
    }

    @Test func thePublicRateLimitCountsAnIPv6NetworkAsOneClient() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let limited = HTTPServer(
            host: "127.0.0.1", port: 0,
            responder: Application.makeResponder(services: app.services, rateLimit: .init(ratePerSecond: 0.5, burst: 3)))
        try limited.start()
        defer { limited.shutdownAndWait() }
        func get(from address: String) throws -> Int {
            let client = try RawClient(port: limited.port)
            client.send("GET /api/sdk/v1/health HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: \(address)\r\n\r\n")
            return try #require(client.readResponse()).status
        }
        let statuses = try (1...8).map { try get(from: Self.sameNetwork($0)) }
        #expect(statuses == [200, 200, 200, 429, 429, 429, 429, 429])
        #expect(try get(from: Self.otherNetwork) == 200)
        // IPv4 addresses stay apart.
        #expect(try (1...4).map { try get(from: "198.51.100.\($0)") } == [200, 200, 200, 200])
    }
}
