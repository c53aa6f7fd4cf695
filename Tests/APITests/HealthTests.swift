import Testing
@testable import API
@testable import HTTP

/// Runs a request through the application's router in-process (no socket).
func respond(_ request: HTTPRequest) -> HTTPResponse {
    let router = Application.makeRouter()
    nonisolated(unsafe) var result: HTTPResponse?
    router.respond(to: request) { result = $0 }
    return result!
}

@Suite struct HealthTests {
    @Test func healthAnswersOK() {
        let response = respond(HTTPRequest(method: .get, target: "/health", headers: ["Host": "h"]))
        #expect(response.status == .ok)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"status":"ok"}"#)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.headers["Cache-Control"] == "no-store")
    }

    @Test func reservedPrefixesNeverReachLinkRoutes() {
        for prefix in Application.reservedPrefixes {
            let response = respond(HTTPRequest(method: .get, target: "/\(prefix)/unknown", headers: ["Host": "h"]))
            #expect(response.status == .notFound, "/\(prefix)/unknown")
        }
    }
}
