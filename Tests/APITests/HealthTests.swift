import TestSupport
import Testing

@testable import API
@testable import HTTP

/// Runs a request through the application's router in-process (no socket).
func respond(_ request: HTTPRequest, app: TestApp) -> HTTPResponse {
    let router = Application.makeRouter(services: app.services)
    nonisolated(unsafe) var result: HTTPResponse?
    router.respond(to: request) { result = $0 }
    return result!
}

@Suite struct HealthTests {
    @Test func healthAnswersOK() throws {
        let app = try TestApp()
        let response = respond(HTTPRequest(method: .get, target: "/health", headers: ["Host": "h"]), app: app)
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"status":"ok"}"#)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
    }

    @Test func readinessAnswersWhenTheDatabaseDoes() throws {
        let app = try TestApp()
        let response = try app.request("GET", "/health/ready")
        #expect(response.status == 200)
        #expect(response.json?["status"] as? String == "ready")
    }

    @Test func reservedPrefixesNeverReachLinkRoutes() throws {
        let app = try TestApp()
        for prefix in Application.reservedPrefixes {
            let response = respond(HTTPRequest(method: .get, target: "/\(prefix)/unknown", headers: ["Host": "h"]), app: app)
            #expect(response.status == .notFound, "/\(prefix)/unknown")
        }
    }
}
