import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// Every kind of request, on a server whose event loops must never wait on the database: in debug
/// builds the store records any read or waited-for write made on a loop thread.
@Suite(.serialized) struct NonBlockingLoopTests {
    @Test func noRequestWaitsOnTheDatabaseOnAnEventLoop() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)
        _ = BlockingCalls.drain()
        let (projectID, key, _) = try app.projectWithLink()
        let token = "lr-token-0123456789abcdef"
        try app.services.app.projects.setToken(projectID: projectID, token: token)  // the commit empties the caches
        // A webhook endpoint: installs, events and payments ask the (cold) endpoint cache which want them.
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"http://127.0.0.1:9/hook"}"#).status == 201)
        // Link taps and resolves, first with cold caches (the miss is where a read would block).
        for _ in 0..<2 {
            _ = try app.clickWithBeacon(ip: "198.51.100.90")
            _ = try app.request("GET", "/api/sdk/v1/resolve/summer?fp_tz=Europe/Paris", adminKey: nil, headers: ["Authorization": "Bearer \(key)"])
            _ = try app.request("GET", "/summer/qr", adminKey: nil)
        }
        // LinkForty install and event, Linkrunner's calls, each twice (cold, then warm caches).
        for round in 0..<2 {
            app.services.app.projects.cache.invalidateAll()
            let install = try app.install(ip: "198.51.100.90", key: key).json?["installId"] as? String ?? ""
            _ = try app.request("POST", "/api/sdk/v1/event", json: #"{"installId":"\#(install)","eventName":"e\#(round)"}"#, adminKey: key)
            for endpoint in ["init", "attribution-data", "trigger", "capture-event", "capture-payment", "handle-deeplink"] {
                _ = try app.client(endpoint, body(endpoint, token: token))
            }
        }
        // An `open` project's install without a credential: the project is found by reading.
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"sdk_auth":"open"}"#).status == 200)
        #expect(
            try app.request(
                "POST", "/api/sdk/v1/install", json: #"{"userAgent":"Shop/2.1 iOS/17.4.1"}"#, adminKey: nil,
                headers: ["X-Forwarded-For": "198.51.100.91"]
            ).status == 200)
        _ = try app.request("GET", "/health", adminKey: nil)
        _ = try app.request("GET", "/health/ready", adminKey: nil)
        #expect(try app.factsAwaitingJobs() >= 5, "the requests above were reported to the endpoint")
        let reports = BlockingCalls.drain()
        #expect(reports.isEmpty, "\(reports.count) blocking store calls on event loops:\n\(reports.prefix(6).joined(separator: "\n---\n"))")
    }
}
