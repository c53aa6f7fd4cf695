import Foundation
import HTTP
import StoreContracts
import TestSupport
import Testing

@testable import API
@_spi(StoreInternals) @testable import Store

@Suite struct RateLimitTests {
    @Test func bucketsAllowTheBurstThenRefillAtTheRate() {
        let limiter = RateLimiter<String>(settings: .init(ratePerSecond: 2, burst: 3))
        let second: UInt64 = 1_000_000_000
        for _ in 0..<3 { #expect(limiter.retryAfter(client: "a", now: 0) == nil) }
        let wait = limiter.retryAfter(client: "a", now: 0)
        #expect(wait != nil && abs(wait! - 0.5) < 1e-9)
        #expect(limiter.retryAfter(client: "b", now: 0) == nil)  // another address has its own bucket
        #expect(limiter.retryAfter(client: "a", now: second / 2) == nil)  // half a second: one token back
        #expect(limiter.retryAfter(client: "a", now: second / 2) != nil)
    }

    @Test func memoryStaysBoundedUnderAFloodOfAddresses() {
        let limiter = RateLimiter<String>(settings: .init(ratePerSecond: 1, burst: 1), maxClients: 1_000, shardCount: 4)
        for index in 0..<50_000 { _ = limiter.retryAfter(client: "10.0.\(index / 256).\(index % 256)", now: UInt64(index)) }
        #expect(limiter.trackedClients <= 1_000)
    }

    @Test func overHTTPPublicRoutesGet429AndRecoverWhileAdminIsExempt() throws {
        let app = try TestApp()
        let (_, _, _) = try app.projectWithLink()
        let limited = HTTPServer(
            host: "127.0.0.1", port: 0,
            responder: Application.makeResponder(services: app.services, rateLimit: .init(ratePerSecond: 2, burst: 2)))
        try limited.start()
        defer { limited.shutdownAndWait() }
        func get(_ path: String, admin: Bool = false) throws -> TestResponse {
            let client = try RawClient(port: limited.port)
            client.send("GET \(path) HTTP/1.1\r\nHost: t\r\n" + (admin ? "Authorization: Bearer \(TestApp.adminKey)\r\n" : "") + "\r\n")
            return try #require(client.readResponse())
        }
        #expect(try get("/api/sdk/v1/health").status == 200)
        #expect(try get("/api/sdk/v1/health").status == 200)
        let refused = try get("/api/sdk/v1/health")
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "1")
        #expect(refused.json?["error"] as? String == "rate_limited")
        for _ in 0..<5 { #expect(try get("/admin/v1/projects", admin: true).status == 200) }  // exempt
        #expect(try get("/health").status == 200)
        let client = try RawClient(port: limited.port)
        client.send("POST /api/client/init HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n{}")
        let envelope = try #require(client.readResponse())
        #expect(envelope.status == 429 && envelope.json?["status"] as? Int == 429)  // Linkrunner clients get their envelope
        usleep(1_100_000)  // about time: the budget refills at its rate, so the test waits for it
        #expect(try get("/api/sdk/v1/health").status == 200)  // recovered
    }
}
