import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// Webhooks end to end: a fact written through the real HTTP path, its job in the same
/// transaction, the worker delivering to a receiver on 127.0.0.1, signed as Standard Webhooks says.
@Suite struct WebhookDeliveryTests {
    /// (app, project id, Linkrunner token, endpoint JSON) with an endpoint on `receiver`.
    func setUp(_ receiver: WebhookReceiver, events: String = "", worker: Bool = true) throws
        -> (app: TestApp, projectID: String, token: String, endpoint: [String: Any])
    {
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        let created = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)"\#(events)}"#)
        #expect(created.status == 201)
        if worker { app.startOutbox() }
        return (app, projectID, token, try #require(created.json))
    }

    func initInstall(_ app: TestApp, token: String, instance: String = "inst-1") throws -> String {
        let response = try app.request(
            "POST", "/api/client/init", json: #"{"token":"\#(token)","platform":"IOS","install_instance_id":"\#(instance)"}"#,
            adminKey: nil)
        #expect(response.status == 200)
        return try #require((response.json?["data"] as? [String: Any])?["install_id"] as? String)
    }

    /// The project's deliveries of `status` once there are `count` of them (the worker records an
    /// attempt just after the receiver answered), waiting at most 5 s.
    func deliveries(_ app: TestApp, _ projectID: String, status: String, count: Int = 1) throws -> [[String: Any]] {
        var found: [[String: Any]] = []
        _ = try eventually(timeout: 5) {
            found =
                try app.request("GET", "/admin/v1/projects/\(projectID)/deliveries?status=\(status)").json?["deliveries"] as? [[String: Any]] ?? []
            return found.count >= count
        }
        return found
    }

    /// `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>` recomputed from the secret.
    func expectedSignature(secret: String, id: String, timestamp: String, body: [UInt8]) -> String {
        let key = Array(Data(base64Encoded: String(secret.dropFirst("whsec_".count)))!)
        return "v1," + Data(Secrets.hmacSHA256(keyBytes: key, message: Array("\(id).\(timestamp).".utf8) + body)).base64EncodedString()
    }

    @Test func aTestModeProjectsWebhooksGoOutInRealTimeWhateverItsClockSays() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject(testMode: true)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)"}"#).status == 201)
        app.startOutbox()
        let moved = try app.advanceClock(projectID, seconds: 40 * 86_400)
        _ = try initInstall(app, token: token)
        // Delivered now, stamped with the project's clock.
        let delivered = receiver.wait(for: 1, seconds: 5)
        #expect(delivered.count == 1, "the install's webhook waited for the project's clock")
        let timestamp = try #require(delivered.first?.json?["timestamp"] as? String)
        #expect(timestamp.hasPrefix(String(moved.iso8601.prefix(10))), "\(timestamp) vs \(moved.iso8601)")
    }

    @Test func anInstallIsDeliveredSignedAsStandardWebhooksDefines() throws {
        let receiver = try WebhookReceiver()
        let (app, projectID, token, endpoint) = try setUp(receiver)
        let secret = try #require(endpoint["secret"] as? String)
        #expect(secret.hasPrefix("whsec_") && Data(base64Encoded: String(secret.dropFirst(6)))?.count == 32)
        let installID = try initInstall(app, token: token)

        let got = receiver.wait(for: 1)
        let delivery = try #require(got.first)
        let id = try #require(delivery.headers["webhook-id"])
        let timestamp = try #require(delivery.headers["webhook-timestamp"])
        #expect(id.hasPrefix("msg_"))
        #expect(abs((Int64(timestamp) ?? 0) - Int64(Date().timeIntervalSince1970)) < 60)
        #expect(delivery.headers["webhook-signature"] == expectedSignature(secret: secret, id: id, timestamp: timestamp, body: delivery.body))
        #expect(delivery.headers["content-type"] == "application/json")
        #expect(delivery.headers["user-agent"] == "attributiond/test")
        let json = try #require(delivery.json)
        #expect(json["type"] as? String == "install.created")
        let data = try #require(json["data"] as? [String: Any])
        #expect(data["install_id"] as? String == installID)
        #expect((data["attribution"] as? [String: Any])?["source"] as? String == "organic")

        // A launch that finds the install again is not a new install: nothing more is sent.
        _ = try initInstall(app, token: token)
        #expect(try app.waitForOutboxIdle())
        #expect(receiver.all.count == 1)

        let deliveries = try self.deliveries(app, projectID, status: "delivered")
        #expect(deliveries.count == 1)
        #expect(deliveries.first?["status"] as? String == "delivered")
        #expect(deliveries.first?["attempts"] as? Int == 1)
        #expect(deliveries.first?["last_status_code"] as? Int == 200)
        #expect(deliveries.first?["event_id"] as? String == id)
        let metrics = String(decoding: try app.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"attributiond_outbox_attempts_total{kind="webhook",outcome="2xx"} 1"#))
        #expect(metrics.contains(#"attributiond_outbox_jobs{kind="webhook",status="pending"} 0"#))
        #expect(!metrics.contains(secret), "secrets never appear in metrics")
    }

    @Test func failedAttemptsAreRetriedUnderTheSameIDUntilA2xx() throws {
        let receiver = try WebhookReceiver(answers: [(.internalServerError, [:]), (.tooManyRequests, ["Retry-After": "0"])])
        let (app, projectID, token, _) = try setUp(receiver)
        _ = try initInstall(app, token: token)
        let got = receiver.wait(for: 3)
        #expect(got.count == 3)
        #expect(Set(got.compactMap { $0.headers["webhook-id"] }).count == 1, "a retry is the same message")
        #expect(try deliveries(app, projectID, status: "delivered").first?["attempts"] as? Int == 3)
    }

    @Test func goneDisablesTheEndpointAndStopsItsJobs() throws {
        let receiver = try WebhookReceiver(answers: [(HTTPStatus(code: 410, reasonPhrase: "Gone"), [:])])
        let (app, projectID, token, endpoint) = try setUp(receiver)
        _ = try initInstall(app, token: token)
        _ = receiver.wait(for: 1)
        let endpointID = try #require(endpoint["id"] as? String)
        var shown: [String: Any] = [:]
        _ = try eventually(timeout: 5) {
            shown = try app.request("GET", "/admin/v1/projects/\(projectID)/webhooks/\(endpointID)").json ?? [:]
            return shown["enabled"] as? Bool == false
        }
        #expect(shown["enabled"] as? Bool == false)
        #expect(shown["disabled_reason"] as? String == "410 Gone")
        #expect(shown["secret"] == nil, "the secret is shown only at creation")
        _ = try initInstall(app, token: token, instance: "inst-2")
        #expect(try app.waitForOutboxIdle())
        #expect(receiver.all.count == 1)
        let failed = try deliveries(app, projectID, status: "failed")
        #expect(failed.count == 1)
        #expect(failed.first?["last_status_code"] as? Int == 410)
    }

    @Test func theEventFilterChoosesWhatIsSent() throws {
        let receiver = try WebhookReceiver()
        let (app, _, token, _) = try setUp(receiver, events: #","events":["event.created"]"#)
        _ = try initInstall(app, token: token)
        let event = try app.request(
            "POST", "/api/client/capture-event",
            json: """
                {"token":"\(token)","install_instance_id":"inst-1","event_name":"purchase","event_data":{"amount":4.5,"currency":"eur"}}
                """, adminKey: nil)
        #expect(event.status == 200)
        let got = receiver.wait(for: 1)
        #expect(try app.waitForOutboxIdle())
        #expect(receiver.all.count == 1, "install.created is not in the filter")
        let json = try #require(got.first?.json)
        #expect(json["type"] as? String == "event.created")
        let data = try #require(json["data"] as? [String: Any])
        #expect(data["name"] as? String == "purchase")
        #expect(data["revenue"] as? Double == 4.5)
        #expect(data["currency"] as? String == "EUR")
        // What the transaction found, written before the fields serialised ahead of it.
        #expect((data["event_id"] as? String)?.isEmpty == false && (data["install_id"] as? String)?.isEmpty == false)
        #expect(data.keys.contains("user_id") && data["user_id"] is NSNull)
        #expect((data["data"] as? [String: Any])?["currency"] as? String == "eur")
        let timestamp = try #require(json["timestamp"] as? String)
        #expect(timestamp.wholeMatch(of: try Regex(#"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#)) != nil && Timestamp(iso8601: timestamp) != nil)
    }

    @Test func afterARotationBothSecretsSign() throws {
        let receiver = try WebhookReceiver()
        let (app, projectID, token, endpoint) = try setUp(receiver)
        let oldSecret = try #require(endpoint["secret"] as? String)
        let endpointID = try #require(endpoint["id"] as? String)
        let rotated = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks/\(endpointID)/rotate-secret")
        #expect(rotated.status == 200)
        let newSecret = try #require(rotated.json?["secret"] as? String)
        #expect(newSecret != oldSecret)
        _ = try initInstall(app, token: token)
        let delivery = try #require(receiver.wait(for: 1).first)
        let id = delivery.headers["webhook-id"]!
        let timestamp = delivery.headers["webhook-timestamp"]!
        let signatures = (delivery.headers["webhook-signature"] ?? "").split(separator: " ").map(String.init)
        #expect(
            signatures == [
                expectedSignature(secret: newSecret, id: id, timestamp: timestamp, body: delivery.body),
                expectedSignature(secret: oldSecret, id: id, timestamp: timestamp, body: delivery.body),
            ])
    }

    @Test func aJobCommittedWhileNoWorkerRanIsSentByTheNextOne() throws {
        let receiver = try WebhookReceiver()
        let (app, projectID, token, _) = try setUp(receiver, worker: false)
        _ = try initInstall(app, token: token)
        #expect(try app.factsAwaitingJobs() == 1, "the install's job not made yet (or written with it, not moved yet)")
        #expect(receiver.all.isEmpty)
        app.startOutbox()
        #expect(receiver.wait(for: 1).count == 1)
        #expect(try deliveries(app, projectID, status: "delivered").count == 1)
    }

    /// Erasing an install erases its jobs too, sent or not (their payloads tell of it): nothing
    /// about it is listed or sent afterwards.
    @Test func anErasedInstallsJobsGoWithIt() throws {
        let receiver = try WebhookReceiver()
        let (app, projectID, token, _) = try setUp(receiver, worker: false)
        let worker = app.startOutbox()
        let installID = try initInstall(app, token: token)
        #expect(try app.client("capture-event", body("init", token: token, instance: "inst-1", extra: #","event_name":"first""#)).status == 200)
        #expect(receiver.wait(for: 2).count == 2)
        worker.stop(drainSeconds: 2)
        // Written while no worker runs: a payment's job in outbox_new, an event's not made yet (SQLite) or in outbox_new.
        #expect(try app.client("capture-payment", body("capture-payment", token: token, instance: "inst-1")).status == 200)
        #expect(try app.client("capture-event", body("init", token: token, instance: "inst-1", extra: #","event_name":"second""#)).status == 200)
        #expect(try app.factsAwaitingJobs() >= 2)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(installID)").status == 204)
        #expect(try app.count("SELECT count(*) FROM outbox_jobs") == 0)
        #expect(try app.factsAwaitingJobs() == 0)
        #expect(try deliveries(app, projectID, status: "delivered", count: 0).isEmpty)
        app.startOutbox()
        #expect(try app.waitForOutboxIdle())
        #expect(receiver.all.count == 2, "nothing about the erased install is sent")
    }

    @Test func aFailedDeliveryIsReplayedOnRequest() throws {
        let receiver = try WebhookReceiver(answers: [(.internalServerError, [:]), (.internalServerError, [:])])
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        _ = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)"}"#)
        app.startOutbox(waits: [0.1])  // one retry, then failed
        _ = try initInstall(app, token: token)
        _ = receiver.wait(for: 2)
        let failed = try deliveries(app, projectID, status: "failed")
        let deliveryID = try #require(failed.first?["id"] as? String)
        #expect(failed.first?["attempts"] as? Int == 2)
        #expect(failed.first?["last_error"] as? String == "HTTP 500")
        let replay = try app.request("POST", "/admin/v1/projects/\(projectID)/deliveries/\(deliveryID)/replay")
        #expect(replay.status == 202)
        #expect(receiver.wait(for: 3).count == 3)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/deliveries/nope/replay").status == 404)
    }

    @Test func twoWorkersNeverSendOneJobTwice() throws {
        let receiver = try WebhookReceiver()
        let (app, projectID, token, _) = try setUp(receiver, worker: false)
        for index in 0..<40 { _ = try initInstall(app, token: token, instance: "inst-\(index)") }
        app.startOutbox()
        app.startOutbox()
        let got = receiver.wait(for: 40)
        #expect(Set(got.compactMap { $0.headers["webhook-id"] }).count == 40)
        _ = try deliveries(app, projectID, status: "delivered", count: 40)
        #expect(receiver.all.count == 40)
        #expect(try app.count("SELECT count(*) FROM outbox_jobs WHERE status = 'delivered' AND attempts = 1") == 40)
    }

    @Test func anExpiredLeaseIsTakenAgain() throws {
        let app = try TestApp()
        let (projectID, _) = try app.linkrunnerProject()
        let store = app.store.outbox
        let now = Timestamp(milliseconds: 1_000_000)
        try store.enqueue([
            OutboxMessage(
                id: "job-1", projectID: projectID, kind: "webhook", targetID: nil, targetURL: "https://example.com/",
                eventID: "msg_1", eventType: "install.created", payload: "{}", createdAt: now)
        ])
        #expect(try store.claimDue(now: now, leaseUntil: now.adding(seconds: 60), limit: 10).map(\.message.id) == ["job-1"])
        #expect(try store.claimDue(now: now.adding(seconds: 30), leaseUntil: now.adding(seconds: 90), limit: 10).isEmpty, "leased")
        #expect(try store.claimDue(now: now.adding(seconds: 61), leaseUntil: now.adding(seconds: 121), limit: 10).map(\.message.id) == ["job-1"])
    }
}

@Suite struct SKANWebhookTests {
    @Test func aChangeOfConversionValuesIsSentAsSkanUpdated() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"skan":\#(skanSchemaJSON)}"#).status == 200)
        _ = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)","events":["skan.updated"]}"#)
        app.startOutbox()
        _ = try app.client("init", body("init", token: token))
        _ = try app.client("trigger", body("trigger", token: token))  // signup: fine 0 → 8, coarse low → medium
        let got = receiver.wait(for: 2)
        let updates = got.compactMap { $0.json }.filter { $0["type"] as? String == "skan.updated" }.compactMap { $0["data"] as? [String: Any] }
        #expect(updates.count == 2)
        #expect(Set(updates.map { "\($0["fine_conversion_value"] ?? "")/\($0["coarse_conversion_value"] ?? "")" }) == ["0/low", "8/medium"])
        #expect(updates.allSatisfy { $0["window"] as? Int == 1 && $0["lock_postback"] as? Bool == false })
    }
}

@Suite struct WebhookEventTypeTests {
    /// A user linked by a trigger, a payment captured and removed: each reaches the endpoint with
    /// the install it belongs to.
    @Test func usersAndPaymentsAreSentWithTheirInstall() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/webhooks",
                json: #"{"url":"\#(receiver.url)","events":["user.identified","payment.captured","payment.removed"]}"#
            ).status == 201)
        app.startOutbox()
        let installID = try #require((try app.client("init", body("init", token: token)).json?["data"] as? [String: Any])?["install_id"] as? String)
        #expect(try app.client("trigger", body("trigger", token: token)).status == 200)
        #expect(try app.client("capture-payment", body("capture-payment", token: token)).status == 200)
        #expect(
            try app.client(
                "remove-captured-payment",
                body(
                    "remove", token: token,
                    extra: #","user_id":"user_123","payment_id":"payment_123""#)
            ).status == 200)
        let got = receiver.wait(for: 3).compactMap(\.json)
        let byType = Dictionary(
            got.map { ($0["type"] as? String ?? "", $0["data"] as? [String: Any] ?? [:]) }, uniquingKeysWith: { first, _ in first })
        #expect(Set(byType.keys) == ["user.identified", "payment.captured", "payment.removed"])
        #expect(byType["user.identified"]?["user_id"] as? String == "user_123" && byType["user.identified"]?["email"] as? String == "ana@example.com")
        #expect(byType["payment.removed"]?["payment_id"] as? String == "payment_123" && byType["payment.removed"]?["removed"] as? Int == 1)
        #expect(byType.values.allSatisfy { $0["install_id"] as? String == installID })
    }

    /// Every failed delivery since a time is sent again by one request.
    @Test func failedDeliveriesAreReplayedTogether() throws {
        let receiver = try WebhookReceiver(answers: [(.internalServerError, [:]), (.internalServerError, [:])])
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        _ = try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)","events":["install.created"]}"#)
        app.startOutbox(waits: [])  // the first failure is final
        _ = try app.client("init", body("init", token: token, instance: "r-1"))
        _ = try app.client("init", body("init", token: token, instance: "r-2"))
        _ = receiver.wait(for: 2)
        #expect(try WebhookDeliveryTests().deliveries(app, projectID, status: "failed", count: 2).count == 2)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/deliveries/replay", json: #"{"status":"sent"}"#).status == 422)
        let replay = try app.request("POST", "/admin/v1/projects/\(projectID)/deliveries/replay", json: #"{"status":"failed","since":"1h"}"#)
        #expect(replay.status == 202 && replay.json?["replayed"] as? Int == 2)
        #expect(receiver.wait(for: 4).count == 4)
    }
}
