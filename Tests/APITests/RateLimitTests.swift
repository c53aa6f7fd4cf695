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

    @Test func aRequestThatReadTheClockBeforeAnotherNeverRefillsTheBucket() {
        let limiter = RateLimiter<String>(settings: .init(ratePerSecond: 1, burst: 2))
        let second: UInt64 = 1_000_000_000
        #expect(limiter.retryAfter(client: "a", now: 10 * second) == nil)
        #expect(limiter.retryAfter(client: "a", now: 10 * second) == nil)
        // Read a moment earlier, arriving later: no time has passed for the bucket (it used to wrap).
        #expect(limiter.retryAfter(client: "a", now: 10 * second - 1) != nil)
        #expect(limiter.retryAfter(client: "a", now: 9 * second) != nil)
        #expect(limiter.retryAfter(client: "a", now: 11 * second) == nil)
    }

    @Test func concurrentPasswordGuessesCannotPassTheBudgetBeforeItIsSpent() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        _ = try app.projectWithLink(#"{"short_code":"secret","web_url":"https://shop.example.com/","password":"right one"}"#)
        let statuses = LockedList()
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<3 {
                guard let client = try? RawClient(port: app.port) else { continue }
                let body = "password=wrong"
                client.send(
                    "POST /secret HTTP/1.1\r\nHost: test\r\nX-Forwarded-For: 198.51.100.77\r\n"
                        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                statuses.append(String(client.readResponse()?.status ?? 0))
            }
        }
        // 48 guesses at once: the hashes that ran are at most the budget's burst (10).
        #expect(statuses.all.filter { $0 == "401" }.count <= 10, "\(statuses.all.sorted())")
        #expect(statuses.all.filter { $0 == "429" }.count >= 38)
    }

    @Test func retryAfterIsWholeSecondsFromOneToADayWhateverTheWait() {
        #expect([0, 0.2, 1, 5.01, 1e300, .infinity, .nan, -3].map(retryAfterSeconds) == [1, 1, 1, 6, 86_400, 86_400, 86_400, 1])
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
