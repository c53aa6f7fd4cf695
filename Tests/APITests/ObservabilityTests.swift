import Foundation
import HTTP
import StoreContracts
import Synchronization
import TestSupport
import Testing

@testable import API
@_spi(StoreInternals) @testable import Store

@Suite struct ObservabilityTests {
    /// A server with metrics and a captured request log in front of the app.
    final class Captured: @unchecked Sendable {
        private let lock = NSLock()
        private var bytes: [UInt8] = []
        func append(_ more: [UInt8]) {
            lock.lock()
            bytes += more
            lock.unlock()
        }
        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    @Test func anInternalErrorIsReportedWithItsDetailsAndTheClientGetsNone() throws {
        let reported = Mutex<[String]>([])
        let app = try TestApp { error, request in reported.withLock { $0.append("\(request): \(error)") } }
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.client("init", #"{"token":"\#(token)","platform":"IOS","install_instance_id":"I"}"#).status == 200)
        // The store broken under the server: events can no longer be written or counted.
        try app.run(TestApp.backend == .postgres ? "DROP TABLE events CASCADE" : "DROP TABLE events")

        let event = try app.client("capture-event", #"{"token":"\#(token)","platform":"IOS","install_instance_id":"I","event_name":"x"}"#)
        // Not from a midnight: the part of that day is counted from rows, events among them.
        let stats = try app.request("GET", "/admin/v1/projects/\(projectID)/stats?since=2020-01-01T00:30:00Z")
        #expect(event.status == 500 && stats.status == 500)
        for response in [event, stats] {
            #expect(response.bodyText.contains("could not complete") && !response.bodyText.contains("events"), "\(response.bodyText)")
        }
        let lines = reported.withLock { $0 }
        #expect(lines.count == 2, "\(lines)")
        #expect(
            lines.first?.hasPrefix("POST /api/client/capture-event: ") == true
                && lines.first?.contains(TestApp.backend == .postgres ? #"relation "events" does not exist"# : "no such table: events") == true,
            "\(lines)")
        #expect(lines.last?.hasPrefix("GET /admin/v1/projects/\(projectID)/stats: ") == true && lines.last?.contains("events") == true, "\(lines)")
    }

    private func observed(_ app: TestApp, logIP: Bool) throws -> (HTTPServer, RequestLog, Captured) {
        let captured = Captured()
        let log = RequestLog(logIP: logIP) { bytes in captured.append(bytes) }
        let server = HTTPServer(
            host: "127.0.0.1", port: 0,
            responder: Application.makeResponder(services: app.services, rateLimit: nil, log: log, openConnections: { 7 }))
        try server.start()
        return (server, log, captured)
    }

    @Test func metricsParseAndCountARequest() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        _ = try app.projectWithLink()
        let (server, _, _) = try observed(app, logIP: true)
        defer { server.shutdownAndWait() }
        func get(_ path: String, admin: Bool = false, extra: String = "") throws -> TestResponse {
            let client = try RawClient(port: server.port)
            client.send("GET \(path) HTTP/1.1\r\nHost: t\r\n\(extra)" + (admin ? "Authorization: Bearer \(TestApp.adminKey)\r\n" : "") + "\r\n")
            return try #require(client.readResponse())
        }
        #expect(try get("/metrics").status == 401)
        _ = try get("/summer", extra: "User-Agent: \(safariIPhone)\r\n")
        _ = try get("/nope-404")
        try app.settle()  // the click committed (on PostgreSQL the admin writes are not the writer's)
        let metrics = try get("/metrics", admin: true)
        #expect(metrics.status == 200 && metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
        // Every line is a comment or `name{labels} value` with a number value.
        var samples: [String: Double] = [:]
        for line in metrics.bodyText.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            #expect(parts.count == 2, "\(line)")
            let value = Double(String(parts[1]))
            #expect(value != nil, "\(line)")
            samples[String(parts[0])] = value ?? .nan
        }
        #expect(samples[#"attributiond_http_requests_total{route="/:code",status="200"}"#] == 1)
        #expect(samples["attributiond_clicks_recorded_total"] == 1)
        #expect(samples["attributiond_open_connections"] == 7)
        #expect((samples[#"attributiond_http_request_duration_seconds_bucket{le="+Inf"}"#] ?? 0) >= 3)
        #expect(samples.keys.contains("attributiond_write_queue_depth"))
        // The click (and on SQLite the project and link) committed at least once; a commit carries
        // one write or more.
        let commits = samples["attributiond_store_commits_total"] ?? 0
        #expect(commits >= 1 && (samples["attributiond_store_committed_writes_total"] ?? 0) >= commits)
        #expect(metrics.bodyText.contains("# TYPE attributiond_store_commits_total counter\n"))
        // One renderer: every sample's family is declared once with HELP and TYPE before it, and
        // every histogram counts up to its +Inf bucket, which equals its _count.
        var declared: [String: String] = [:]
        var helped: Set<String> = []
        for line in metrics.bodyText.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 3).map(String.init)
            if words.first == "#" {
                if words[1] == "HELP" { #expect(helped.insert(words[2]).inserted, "HELP twice for \(words[2])") }
                if words[1] == "TYPE" { #expect(declared.updateValue(words[3], forKey: words[2]) == nil, "TYPE twice for \(words[2])") }
                continue
            }
            let name = String(words[0].prefix { $0 != "{" })
            let family =
                declared[name] != nil
                ? name
                : ["_bucket", "_sum", "_count"].compactMap { suffix in
                    name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : nil
                }.first { declared[$0] == "histogram" }
            #expect(family.map { declared[$0] != nil && helped.contains($0) } == true, "\(name) has no declared family")
        }
        for (name, type) in declared where type == "histogram" {
            let buckets = metrics.bodyText.split(separator: "\n").filter { $0.hasPrefix(name + "_bucket{") }
                .compactMap { Double($0.split(separator: " ").last ?? "") }
            #expect(buckets == buckets.sorted(), "\(name) is cumulative")
            #expect(buckets.last == samples[name + "_count"], "\(name): +Inf equals _count")
        }
    }

    @Test func requestLinesAreJSONWithTheRoutePatternAndAHashedIPWhenAsked() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        _ = try app.projectWithLink()
        let (server, log, captured) = try observed(app, logIP: false)
        defer { server.shutdownAndWait() }
        let client = try RawClient(port: server.port)
        client.send("GET /summer HTTP/1.1\r\nHost: t\r\nUser-Agent: \(safariIPhone)\r\nX-Forwarded-For: 198.51.100.99\r\n\r\n")
        _ = client.readResponse()
        log.flush()
        let text = captured.text
        let line = try #require(text.split(separator: "\n").first)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["route"] as? String == "/:code" && json["status"] as? Int == 200 && json["method"] as? String == "GET")
        #expect((json["duration_us"] as? Int ?? -1) >= 0 && (json["bytes"] as? Int ?? 0) > 0)
        #expect(json["ip"] == nil)
        #expect((json["ip_hash"] as? String)?.count == 16)
        #expect(!text.contains("198.51.100.99"))
    }

    /// Every line arrives once and in order across many flushes, and a log that cannot keep up
    /// holds at most `maximumPending` bytes, then says how many lines it dropped.
    @Test func aLogThatCannotKeepUpDropsLinesAndSaysHowMany() throws {
        let captured = Captured()
        let firstWrite = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let writes = Mutex(0)
        let log = RequestLog(logIP: true, flushThreshold: 1024, maximumPending: 8192) { bytes in
            let number = writes.withLock { count in
                count += 1
                return count
            }
            if number == 1 {
                firstWrite.signal()
                release.wait()  // the sink stalls on its first write
            }
            captured.append(bytes)
        }
        func record(_ index: Int) { log.record(method: "GET", route: "/\(index)", status: 200, microseconds: 1, bytes: 1, ip: nil) }
        var index = 0
        while index < 20 {
            record(index)
            index += 1
        }  // ~2.5 KB: past the 1 KiB threshold, a flush is queued
        try #require(firstWrite.wait(timeout: .now() + 10) == .success, "the threshold flush reached the sink")
        let beforeStall = index
        for _ in 0..<2000 {
            record(index)
            index += 1
        }  // ~150 KB while the sink is stuck
        release.signal()
        log.flush()
        let lines = captured.text.split(separator: "\n").map(String.init)
        let warnings = lines.filter { $0.contains(#""msg":"request log lines dropped"#) }
        #expect(warnings.count == 1)
        let dropped = try #require((try JSONSerialization.jsonObject(with: Data(warnings[0].utf8)) as? [String: Any])?["count"] as? Int)
        let routes = lines.filter { !$0.contains("dropped") }.compactMap { $0.split(separator: #""route":"/"#).last?.split(separator: "\"").first }
            .map { Int($0)! }
        #expect(routes.count + dropped == index)
        #expect(routes == Array(0..<routes.count), "kept lines are the first ones, in order")
        #expect(routes.count >= beforeStall)
        // What waited behind the stalled write fit in the limit.
        #expect((routes.count - beforeStall) * 120 <= 8192 + 1024, "\(routes.count - beforeStall) lines held")
    }
}
