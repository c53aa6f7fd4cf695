import Attribution
import Dispatch
import Foundation
import HTTP
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App

/// Receivers that are slow, absent or killed mid-delivery: retried or failed as specified, and
/// the request path never waits for any of it.
@Suite struct DeliveryFaultTests {
    @Test func aSlowReceiverTimesOutIsRetriedAndNeverSlowsARequest() throws {
        let receiver = try WebhookReceiver()
        receiver.stall(6)
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        _ = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)","events":["install.created"]}"#)
        app.startOutbox(waits: [0.1, 0.1], timeout: 4)
        _ = try app.client("init", body("init", token: token, instance: "slow-1"))
        _ = receiver.wait(for: 1)
        // While the delivery hangs, requests are answered: all of them before its first attempt
        // has even timed out (no bound on a shared machine's latency, only on the order of things).
        for index in 0..<5 {
            #expect(
                try app.client("capture-event", body("init", token: token, instance: "slow-1", extra: #","event_name":"e\#(index)""#)).status == 200)
        }
        let hanging = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/deliveries").json?["deliveries"] as? [[String: Any]])
        #expect(hanging.first?["attempts"] as? Int == 0, "the requests were answered while the delivery still hung")
        receiver.stall(0)
        _ = receiver.wait(for: 2)
        var delivered: [[String: Any]] = []
        _ = try eventually(timeout: 8) {
            delivered =
                try app.request("GET", "/admin/v1/projects/\(projectID)/deliveries?status=delivered").json?["deliveries"] as? [[String: Any]] ?? []
            return !delivered.isEmpty
        }
        #expect(delivered.first?["event_type"] as? String == "install.created")
        #expect((delivered.first?["attempts"] as? Int ?? 0) >= 2, "the first attempt timed out")
        let metrics = String(decoding: try app.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"attributiond_outbox_attempts_total{kind="webhook",outcome="error"}"#))
    }

    @Test func aReceiverThatIsNotThereFailsAfterTheScheduleAndIsLoggedOnce() throws {
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        _ = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"http://127.0.0.1:1/hook"}"#)
        let failures = LockedList()
        app.startOutbox(waits: [0.05], timeout: 2) { job, attempts, error in failures.append("\(job.eventType) \(attempts) \(error)") }
        _ = try app.client("init", body("init", token: token))
        _ = eventually(timeout: 8) { !failures.all.isEmpty }
        #expect(try app.waitForOutboxIdle())
        #expect(failures.all.count == 1)
        #expect(failures.all.first?.hasPrefix("install.created 2 ") == true, "\(failures.all)")
        let failed = try #require(
            try app.request("GET", "/admin/v1/projects/\(projectID)/deliveries?status=failed").json?["deliveries"] as? [[String: Any]])
        #expect(failed.first?["attempts"] as? Int == 2)
        #expect(failed.first?["last_status_code"] == nil, "no answer, no status")
        #expect((failed.first?["last_error"] as? String)?.isEmpty == false)
    }

    /// The server is killed while deliveries hang and more wait; after a restart every install
    /// and every event reaches the receiver, repeats carrying the same webhook-id. (On SQLite the
    /// events are the outbox's log: some are killed before their jobs were made.)
    @Test func everyJobIsDeliveredAfterSIGKILL() throws {
        let receiver = try WebhookReceiver()
        receiver.stall(10)
        let adminKey = "outbox-admin-key-0123456789"
        let environment = [
            "ATTRIBUTIOND_ADMIN_KEY": adminKey, "ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true",
            "ATTRIBUTIOND_OUTBOUND_REQUEST_TIMEOUT_SECONDS": "2", "ATTRIBUTIOND_RATE_LIMIT": "0",
        ]
        let first = try ServerProcess(environment: environment)
        func send(_ port: UInt16, _ method: String, _ path: String, _ json: String, admin: Bool = true) throws -> TestResponse? {
            let client = try RawClient(port: port, receiveTimeout: 10)
            let auth = admin ? "Authorization: Bearer \(adminKey)\r\n" : ""
            client.send("\(method) \(path) HTTP/1.1\r\nHost: t\r\n\(auth)Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
            return client.readResponse()
        }
        let project = try #require(try send(first.port, "POST", "/admin/v1/projects", #"{"name":"Shop"}"#)?.json)
        let projectID = try #require(project["id"] as? String)
        let token = try #require(project["token"] as? String)
        #expect(try send(first.port, "POST", "/admin/v1/projects/\(projectID)/webhooks", #"{"url":"\#(receiver.url)"}"#)?.status == 201)
        var installs: Set<String> = []
        for index in 0..<20 {
            let response = try send(
                first.port, "POST", "/api/client/init",
                #"{"token":"\#(token)","platform":"IOS","install_instance_id":"k-\#(index)"}"#, admin: false)
            if let id = (response?.json?["data"] as? [String: Any])?["install_id"] as? String { installs.insert(id) }
        }
        #expect(installs.count == 20)
        _ = receiver.wait(for: 1)  // deliveries are hanging in the receiver now
        let events = Set((0..<20).map { "purchase-\($0)" })
        for (index, name) in events.sorted().enumerated() {
            let response = try send(
                first.port, "POST", "/api/client/capture-event",
                #"{"token":"\#(token)","install_instance_id":"k-\#(index)","event_name":"\#(name)"}"#, admin: false)
            #expect(response?.status == 200)
        }
        #expect(first.terminateAndWait(signal: SIGKILL) == 128 + SIGKILL)

        receiver.stall(0)
        let second = try ServerProcess(folder: first.folder, environment: environment)
        var delivered: Set<String> = []
        _ = eventually(timeout: 30) {
            delivered = Set(
                receiver.all.compactMap { received in
                    guard received.json?["type"] as? String == "install.created" else { return nil }
                    return (received.json?["data"] as? [String: Any])?["install_id"] as? String
                })
            return delivered == installs
        }
        #expect(delivered == installs, "not delivered after the restart: \(installs.subtracting(delivered).count)")
        func eventNames() -> Set<String> {
            Set(
                receiver.all.compactMap { received in
                    guard received.json?["type"] as? String == "event.created" else { return nil }
                    return (received.json?["data"] as? [String: Any])?["name"] as? String
                })
        }
        _ = eventually(timeout: 30) { eventNames() == events }
        #expect(eventNames() == events, "events not delivered after the restart: \(events.subtracting(eventNames()).sorted())")
        var idsByFact: [String: Set<String>] = [:]
        for received in receiver.all {
            let data = received.json?["data"] as? [String: Any]
            let type = received.json?["type"] as? String ?? ""
            if let fact = (type == "event.created" ? data?["event_id"] : data?["install_id"]) as? String, let id = received.headers["webhook-id"] {
                idsByFact[type + fact, default: []].insert(id)
            }
        }
        #expect(idsByFact.count == 40)
        #expect(idsByFact.values.allSatisfy { $0.count == 1 }, "a repeat must carry the first attempt's webhook-id")
        #expect(second.terminateAndWait() == 0)
        withExtendedLifetime(first) {}  // its folder holds the second server's database
    }
}

@Suite struct OutboxLifecycleTests {
    /// SIGTERM while a delivery is under way: the server waits for its answer (within the drain
    /// time), records it, and exits 0; nothing is left leased.
    @Test func aDrainingServerFinishesTheDeliveryUnderWay() throws {
        let receiver = try WebhookReceiver()
        receiver.stall(1)
        let adminKey = "outbox-admin-key-0123456789"
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_ADMIN_KEY": adminKey, "ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true"])
        func send(_ path: String, _ json: String, admin: Bool = true) throws -> TestResponse? {
            let client = try RawClient(port: server.port, receiveTimeout: 10)
            let auth = admin ? "Authorization: Bearer \(adminKey)\r\n" : ""
            client.send("POST \(path) HTTP/1.1\r\nHost: t\r\n\(auth)Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
            return client.readResponse()
        }
        let project = try #require(try send("/admin/v1/projects", #"{"name":"Shop"}"#)?.json)
        let projectID = try #require(project["id"] as? String)
        let token = try #require(project["token"] as? String)
        #expect(try send("/admin/v1/projects/\(projectID)/webhooks", #"{"url":"\#(receiver.url)"}"#)?.status == 201)
        #expect(try send("/api/client/init", #"{"token":"\#(token)","platform":"IOS","install_instance_id":"d-1"}"#, admin: false)?.status == 200)
        _ = receiver.wait(for: 1)  // the delivery is hanging in the receiver
        #expect(server.terminateAndWait() == 0)
        let connection = try SQLiteConnection(path: server.databasePath, mode: .readOnly)
        let row = try connection.queryOne("SELECT status, attempts, lease_until FROM outbox_jobs") {
            "\($0.string(0)) \($0.int(1)) \($0.optionalInt(2).map(String.init) ?? "-")"
        }
        #expect(row == "delivered 1 -")
    }

    /// A node with deliveries off sends nothing; what it stored goes out from the next server
    /// that delivers (on SQLite the events' jobs are made by that server, from the events).
    @Test func whatANodeThatSendsNothingStoredGoesOutFromTheNextThatDoes() throws {
        let receiver = try WebhookReceiver()
        let adminKey = "outbox-admin-key-0123456789"
        let environment = ["ATTRIBUTIOND_ADMIN_KEY": adminKey, "ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true"]
        let first = try ServerProcess(environment: environment.merging(["ATTRIBUTIOND_OUTBOUND_DELIVER": "false"]) { $1 })
        func send(_ port: UInt16, _ path: String, _ json: String, admin: Bool = true) throws -> TestResponse? {
            let client = try RawClient(port: port, receiveTimeout: 10)
            let auth = admin ? "Authorization: Bearer \(adminKey)\r\n" : ""
            client.send("POST \(path) HTTP/1.1\r\nHost: t\r\n\(auth)Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
            return client.readResponse()
        }
        let project = try #require(try send(first.port, "/admin/v1/projects", #"{"name":"Shop"}"#)?.json)
        let projectID = try #require(project["id"] as? String)
        let token = try #require(project["token"] as? String)
        #expect(try send(first.port, "/admin/v1/projects/\(projectID)/webhooks", #"{"url":"\#(receiver.url)"}"#)?.status == 201)
        #expect(
            try send(
                first.port, "/api/client/init", #"{"token":"\#(token)","platform":"IOS","install_instance_id":"d-1"}"#,
                admin: false)?.status == 200)
        for index in 0..<3 {
            #expect(
                try send(
                    first.port, "/api/client/capture-event",
                    #"{"token":"\#(token)","install_instance_id":"d-1","event_name":"e\#(index)"}"#, admin: false)?.status == 200)
        }
        // Once it has exited, nothing more can come from it.
        #expect(first.terminateAndWait() == 0)
        #expect(receiver.all.isEmpty)

        let second = try ServerProcess(folder: first.folder, environment: environment)
        _ = receiver.wait(for: 4)
        // Stopped (its deliveries under way finish first), it can send nothing more: the count is final.
        #expect(second.terminateAndWait() == 0)
        #expect(receiver.all.count == 4)
        let types = receiver.all.compactMap { received -> String? in
            guard let type = received.json?["type"] as? String else { return nil }
            return type == "event.created" ? (received.json?["data"] as? [String: Any])?["name"] as? String : type
        }
        #expect(types.sorted() == ["e0", "e1", "e2", "install.created"])
        withExtendedLifetime(first) {}  // its folder holds the second server's database
    }

    @Test func deliveredJobsArePrunedAfterTheRetentionTime() throws {
        let app = try TestApp()
        let (projectID, _) = try app.linkrunnerProject()
        let outbox = app.store.outbox
        let old = Timestamp(milliseconds: 1_000_000)
        let now = Timestamp(milliseconds: 1_000_000 + 8 * 86_400_000)
        let messages = ["a", "b", "c"].map {
            OutboxMessage(
                id: "job-\($0)", projectID: projectID, kind: "webhook", targetID: nil, targetURL: "https://example.com/",
                eventID: "msg_\($0)", eventType: "install.created", payload: "{}", createdAt: old)
        }
        try outbox.enqueue(messages)
        let claimed = try outbox.claimDue(now: old, leaseUntil: old.adding(seconds: 20), limit: 10)
        #expect(claimed.count == 3)
        let done = DispatchSemaphore(value: 0)
        outbox.record(.delivered(statusCode: 200, response: nil), request: nil, jobID: "job-a", now: old) { _ in done.signal() }
        outbox.record(.delivered(statusCode: 200, response: nil), request: nil, jobID: "job-b", now: now) { _ in done.signal() }
        outbox.record(.failed(statusCode: 500, error: "HTTP 500", response: nil), request: nil, jobID: "job-c", now: old) { _ in done.signal() }
        for _ in 0..<3 { done.wait() }
        #expect(try outbox.pruneDelivered(before: now.adding(seconds: -7 * 86_400)) == 1)
        #expect(Set(try outbox.jobs(projectID: projectID, status: nil, kind: nil, since: nil, limit: 10).map(\.message.id)) == ["job-b", "job-c"])
    }
}

@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs the openssl command"))
struct OutboundCertificateTests {
    /// A receiver whose certificate no authority signed: the delivery is not made, and says why.
    @Test func aCertificateThatIsNotTrustedIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cert = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        _ = try ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        let receiver = try WebhookReceiver(tls: try TLSContext(certificatePath: cert, privateKeyPath: key))
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)"}"#).status == 201)
        app.startOutbox(waits: [], timeout: 5)  // no retries: the first failure is final
        _ = try app.client("init", body("init", token: token))
        var failed: [[String: Any]] = []
        _ = try eventually(timeout: 8) {
            failed = try app.request("GET", "/admin/v1/projects/\(projectID)/deliveries?status=failed").json?["deliveries"] as? [[String: Any]] ?? []
            return !failed.isEmpty
        }
        #expect((failed.first?["last_error"] as? String)?.lowercased().contains("certificate") == true, "\(failed)")
        #expect(receiver.all.isEmpty, "no request reached the receiver")
    }
}
