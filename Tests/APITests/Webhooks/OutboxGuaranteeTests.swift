import Attribution
import Dispatch
import Foundation
import StoreContracts
import Synchronization
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// "A fact never commits without its jobs", under the load that broke it: writers side by side on
/// several write lanes (PostgreSQL) while the worker moves and delivers jobs, every kind of fact
/// at once. Counted from the database: one webhook job per fact per endpoint, one postback job per
/// fact whose install a template's network drove.
@Suite struct OutboxGuaranteeTests {
    static let writers = 8
    static let usersPerWriter = 50
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"

    @Test func everyAcknowledgedFactHasOneJobPerEndpointUnderConcurrentWritersOnSeveralLanes() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true, writeLanes: 4)
        let (projectID, apiKey, _) = try app.projectWithLink()
        let token = "lr-token-0123456789abcdef"
        try app.services.app.projects.setToken(projectID: projectID, token: token)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)"}"#).status == 201)
        for trigger in ["install", "payment", "purchase"] {
            let created = try app.request(
                "POST", "/admin/v1/projects/\(projectID)/postbacks",
                json: #"{"network":"mail","trigger":"\#(trigger)","url":"\#(receiver.base)/postback?i={install_id}"}"#)
            #expect(created.status == 201)
        }
        app.startOutbox()

        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: Self.writers) { writer in
            for user in 0..<Self.usersPerWriter {
                do { try Self.actAsOneUser(app, token: token, apiKey: apiKey, writer: writer, user: user) } catch {
                    failures.withLock { $0.append("writer \(writer) user \(user): \(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")

        // Every fact's jobs are made (SQLite makes installs' and events' from the log) and moved.
        try app.settle()
        #expect(try eventually(timeout: 20) { try app.factsAwaitingJobs() == 0 })

        let users = Self.writers * Self.usersPerWriter
        #expect(try app.count("SELECT count(*) FROM installs") == Int64(2 * users))
        #expect(try app.count("SELECT count(*) FROM events WHERE recorded_by IS NULL") == Int64(2 * users))
        #expect(try app.count("SELECT count(*) FROM payments") == Int64(users))

        func jobs(_ kind: String, _ type: String) throws -> Int64 {
            try app.count("SELECT count(*) FROM outbox_jobs WHERE kind = '\(kind)' AND event_type = '\(type)'")
        }
        #expect(try jobs("webhook", "install.created") == Int64(2 * users))
        #expect(try jobs("webhook", "event.created") == Int64(2 * users))
        #expect(try jobs("webhook", "payment.captured") == Int64(users))
        let identified = try jobs("webhook", "user.identified")
        let storedUsers = try app.count("SELECT count(*) FROM users")
        #expect(storedUsers == Int64(users))
        #expect(identified == storedUsers)
        // Not one install with other than one install.created, nor one event without its job.
        #expect(
            try app.count(
                """
                SELECT count(*) FROM installs i
                WHERE (SELECT count(*) FROM outbox_jobs j WHERE j.install_id = i.id AND j.event_type = 'install.created') <> 1
                """) == 0)
        #expect(
            try app.count(
                """
                SELECT count(*) FROM installs i
                WHERE (SELECT count(*) FROM outbox_jobs j WHERE j.install_id = i.id AND j.event_type = 'event.created')
                    <> (SELECT count(*) FROM events e WHERE e.install_id = i.id AND e.recorded_by IS NULL)
                """) == 0)

        // Postbacks: one per fact of an install that a click of the template's network drove.
        let driven = "SELECT i.id FROM installs i JOIN clicks c ON c.click_id = i.click_id WHERE i.attributed AND c.utm_source = 'mail'"
        let drivenInstalls = try app.count("SELECT count(*) FROM (\(driven)) AS d")
        #expect(drivenInstalls >= Int64(users), "each user's Linkrunner install follows a click of its own")
        #expect(try jobs("postback", "install") == drivenInstalls)
        #expect(try jobs("postback", "payment") == app.count("SELECT count(*) FROM payments WHERE install_id IN (\(driven))"))
        #expect(try jobs("postback", "purchase") == app.count("SELECT count(*) FROM events WHERE name = 'purchase' AND install_id IN (\(driven))"))
    }

    /// A click, then the Linkrunner calls an app makes (install, event, payment, user), and a
    /// LinkForty install with an event from a second phone on the same network.
    static func actAsOneUser(_ app: TestApp, token: String, apiKey: String, writer: Int, user: Int) throws {
        let ip = "198.51.\(writer).\(user + 1)"
        let instance = "iid-\(writer)-\(user)"
        let idfv = String(format: "6D92078A-8246-4BA4-AE5B-%012d", writer * 1000 + user)
        func expectOK(_ response: TestResponse, _ what: String) throws {
            guard response.status == 200 else {
                throw Failure("\(what) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
            }
        }
        let click = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": iPhone, "X-Forwarded-For": ip])
        guard click.status == 302 || click.status == 200 else { throw Failure("click answered \(click.status)") }
        let lrBody = { (endpoint: String) in
            body(endpoint, token: token, instance: instance)
                .replacingOccurrences(of: "6D92078A-8246-4BA4-AE5B-76104861E7DC", with: idfv)
                .replacingOccurrences(of: "payment_123", with: "payment-\(writer)-\(user)")
                .replacingOccurrences(of: "user_123", with: "user-\(writer)-\(user)")
        }
        try expectOK(app.client("init", lrBody("init"), ip: ip), "init")
        try expectOK(
            app.client("capture-event", #"{"token":"\#(token)","install_instance_id":"\#(instance)","event_name":"purchase"}"#, ip: ip),
            "capture-event")
        try expectOK(app.client("capture-payment", lrBody("capture-payment"), ip: ip), "capture-payment")
        try expectOK(
            app.client(
                "set-user-data",
                #"{"token":"\#(token)","platform":"IOS","install_instance_id":"\#(instance)","user_data":{"id":"user-\#(writer)-\#(user)"}}"#, ip: ip),
            "set-user-data")
        let install = try app.request(
            "POST", "/api/sdk/v1/install",
            json: """
                {"userAgent":"Shop/2.1 iOS/17.4.1","platform":"iOS","platformVersion":"17.4.1","deviceId":"lf-\(writer)-\(user)"}
                """, adminKey: apiKey, headers: ["X-Forwarded-For": ip])
        try expectOK(install, "LinkForty install")
        guard let installID = install.json?["installId"] as? String else { throw Failure("LinkForty install without an id") }
        try expectOK(
            app.request("POST", "/api/sdk/v1/event", json: #"{"installId":"\#(installID)","eventName":"level_up"}"#, adminKey: apiKey),
            "LinkForty event")
        // A write its batch refuses: the batch's other writes run again one by one, each its
        // own savepoint, and keep their jobs (held to the batch's end on PostgreSQL).
        let unknown = try app.request(
            "POST", "/api/sdk/v1/event", json: #"{"installId":"no-such-install-\#(writer)-\#(user)","eventName":"level_up"}"#, adminKey: apiKey)
        guard unknown.status == 404 || unknown.status == 422 else { throw Failure("an unknown install's event answered \(unknown.status)") }
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
