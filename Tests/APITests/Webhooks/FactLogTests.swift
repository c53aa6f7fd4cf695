import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// `event.created` and `install.created` where the stored events and installs are the outbox's
/// log (SQLite: the worker makes the jobs from the facts after a cursor), and what must hold the
/// same on both backends, where PostgreSQL writes them with the fact: which facts an endpoint
/// gets, and what their webhooks say.
@Suite struct FactLogTests {
    let suite = WebhookDeliveryTests()

    func capture(_ app: TestApp, token: String, _ name: String, instance: String = "inst-1") throws {
        let response = try app.request(
            "POST", "/api/client/capture-event",
            json: """
                {"token":"\(token)","install_instance_id":"\(instance)","event_name":"\(name)"}
                """, adminKey: nil)
        #expect(response.status == 200)
    }

    func eventNames(_ receiver: WebhookReceiver) -> [String] {
        receiver.all.compactMap { received in
            guard received.json?["type"] as? String == "event.created" else { return nil }
            return (received.json?["data"] as? [String: Any])?["name"] as? String
        }
    }

    /// SQLite gives a new row the rowid of a deleted newest one (max + 1): the cursor, past the
    /// deleted event, comes back down so that the new event is still after it. (No worker runs
    /// between the delete and the new event: one that did would find the cursor past the newest
    /// event and bring it down itself.)
    @Test func anEventTakingADeletedNewestEventsPlaceIsStillSent() throws {
        let receiver = try WebhookReceiver()
        let (app, _, token, _) = try suite.setUp(receiver, events: #","events":["event.created"]"#, worker: false)
        let worker = app.startOutbox()
        _ = try suite.initInstall(app, token: token)
        try capture(app, token: token, "first")
        #expect(receiver.wait(for: 1).count == 1)
        worker.stop(drainSeconds: 2)
        let firstRow = TestApp.backend == .sqlite ? try app.queryOne("SELECT rowid FROM events WHERE name = 'first'") { $0.int(0) } : nil
        #expect(try app.run("DELETE FROM events WHERE name = 'first'") == 1)
        try capture(app, token: token, "second")
        app.startOutbox()
        #expect(receiver.wait(for: 2).count == 2)
        #expect(eventNames(receiver) == ["first", "second"])
        if let firstRow {
            #expect(
                try app.queryOne("SELECT rowid FROM events WHERE name = 'second'") { $0.int(0) } == firstRow,
                "the case this test is about: the new event took the deleted one's rowid")
        }
    }

    /// Events stored while a project had no endpoint are not sent to the endpoint it gets later:
    /// the cursor moves on over events nobody wanted.
    @Test func anEndpointGetsNoEventStoredBeforeIt() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        app.startOutbox()
        _ = try suite.initInstall(app, token: token)
        try capture(app, token: token, "before")
        if TestApp.backend == .sqlite {
            let row = try #require(try app.queryOne("SELECT rowid FROM events WHERE name = 'before'") { $0.int(0) })
            _ = try eventually(timeout: 5) { try app.count("SELECT position FROM outbox_cursors WHERE name = 'events'") >= row }
            #expect(try app.count("SELECT position FROM outbox_cursors WHERE name = 'events'") == row)
        }
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/webhooks",
                json: #"{"url":"\#(receiver.url)","events":["event.created"]}"#
            ).status == 201)
        try capture(app, token: token, "after")
        #expect(receiver.wait(for: 1).count == 1)
        #expect(try app.waitForOutboxIdle())
        #expect(eventNames(receiver) == ["after"])
    }

    /// A trigger stores a `signup` event for SKAN; its webhook is `user.identified`, not an
    /// `event.created` as well.
    @Test func aTriggersSignupIsSentAsUserIdentifiedOnly() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)"}"#).status == 201)
        app.startOutbox()
        _ = try app.client("init", body("init", token: token))
        #expect(try app.client("trigger", body("trigger", token: token)).status == 200)
        #expect(try app.count("SELECT count(*) FROM events WHERE name = 'signup'") == 1)
        _ = receiver.wait(for: 2)
        #expect(try app.waitForOutboxIdle())
        let types = receiver.all.compactMap { $0.json?["type"] as? String }
        #expect(types.sorted() == ["install.created", "user.identified"])
    }

    /// A move that read the log before the newest event was deleted writes nothing and leaves the
    /// cursor: the event that takes the deleted one's rowid is read by the next move.
    @Test(.enabled(if: TestApp.backend == .sqlite, "SQLite's events are the outbox's log"))
    func aMoveThatReadBeforeTheNewestEventWasDeletedIsRefused() throws {
        let receiver = try WebhookReceiver()
        let (app, _, token, _) = try suite.setUp(receiver, events: #","events":["event.created"]"#, worker: false)
        _ = try suite.initInstall(app, token: token)
        try capture(app, token: token, "a")
        try capture(app, token: token, "b")
        let outbox = app.store.outbox
        let stale = try outbox.loggedEvents(limit: 100)
        #expect(stale.facts.map(\.name) == ["a", "b"])
        #expect(try app.run("DELETE FROM events WHERE name = 'b'") == 1)
        try capture(app, token: token, "c")
        #expect(try outbox.enqueue([], movingLog: stale.position) == false)
        let fresh = try outbox.loggedEvents(limit: 100)
        #expect(fresh.facts.map(\.name) == ["a", "c"])
        #expect(try outbox.enqueue([], movingLog: fresh.position) == true)
        #expect(try outbox.loggedEvents(limit: 100).position.movesCursor == false)
        #expect(try app.count("SELECT position FROM outbox_cursors WHERE name = 'events'") == fresh.position.through)
    }

    /// An attributed install's `install.created`, made from its row on SQLite and with it on
    /// PostgreSQL: the attribution, link and network click id as the install's transaction found them.
    @Test func anAttributedInstallsWebhookTellsItsAttribution() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/webhooks",
                json: #"{"url":"\#(receiver.url)","events":["install.created"]}"#
            ).status == 201)
        app.startOutbox()
        let click = try app.request(
            "GET", "/summer?gclid=Cj0-abc", adminKey: nil,
            headers: [
                "User-Agent": safariIPhone, "X-Forwarded-For": "198.51.100.80", "Accept-Language": "fr-FR,fr;q=0.9",
            ])
        let clickID = try #require(click.header("X-Click-Id"))
        #expect(
            try app.request(
                "POST", "/c/\(clickID)", json: #"{"sw":390,"sh":844,"dpr":3,"tz":"Europe/Paris","tzo":-60,"langs":["fr-FR","fr"]}"#,
                adminKey: nil
            ).status == 204)
        #expect(try app.client("init", body("init", token: token)).status == 200)
        let data = try #require(receiver.wait(for: 1).first?.json?["data"] as? [String: Any])
        let installID = try #require(try app.queryOne("SELECT id FROM installs WHERE install_instance_id = 'IID-1'") { $0.string(0) })
        let linkID = try #require(try app.queryOne("SELECT id FROM links WHERE short_code = 'summer'") { $0.string(0) })
        #expect(data["install_id"] as? String == installID)
        #expect(data["project_id"] as? String == projectID)
        #expect(data["platform"] as? String == "ios")
        #expect(data["reinstall"] as? Bool == false)
        let createdAt = try #require(try app.queryOne("SELECT created_at FROM installs WHERE id = ?", installID) { $0.int(0) })
        #expect(data["created_at"] as? String == Timestamp(milliseconds: createdAt).iso8601)
        let attribution = try #require(data["attribution"] as? [String: Any])
        #expect(attribution["attributed"] as? Bool == true)
        #expect(attribution["source"] as? String == "link")
        #expect(attribution["match_type"] as? String == "probabilistic")
        #expect(attribution["confidence"] as? Double == 0.85)
        #expect(attribution["click_id"] as? String == clickID)
        #expect(attribution["link_id"] as? String == linkID)
        #expect(attribution["short_code"] as? String == "summer")
        #expect((attribution["clicked_at"] as? String).flatMap(Timestamp.init(iso8601:)) != nil)
        #expect((attribution["matched_factors"] as? [String])?.isEmpty == false)
        #expect(attribution["utm"] as? [String: String] == ["source": "mail", "campaign": "summer"])
        #expect(attribution["network_click_id"] as? [String: String] == ["parameter": "gclid", "value": "Cj0-abc"])
    }

    /// Installs and events whose jobs are not made yet count as pending in /metrics, once per
    /// endpoint that wants them, as jobs written with their fact do.
    @Test func factsWaitingForTheirJobsArePendingInTheMetrics() throws {
        let receiver = try WebhookReceiver()
        let (app, projectID, token, _) = try suite.setUp(receiver, worker: false)
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/webhooks",
                json: #"{"url":"\#(receiver.url)","events":["event.created"]}"#
            ).status == 201)
        _ = try suite.initInstall(app, token: token)
        try capture(app, token: token, "purchase")
        let metrics = String(decoding: try app.request("GET", "/metrics").body, as: UTF8.self)
        // install.created for the first endpoint; event.created for both.
        #expect(metrics.contains(#"attributiond_outbox_jobs{kind="webhook",status="pending"} 3"#), "\(metrics)")
        if TestApp.backend == .sqlite {
            let plan = try app.query("EXPLAIN QUERY PLAN SELECT * FROM (SELECT 'x', 'y', 0 WHERE 0 " + OutboxRepository.loggedFactsAwaitingJobs + ")")
            {
                $0.string(3)
            }
            #expect(plan.filter { $0.hasPrefix("SCAN e") || $0.hasPrefix("SCAN i") }.isEmpty, "\(plan)")
            #expect(plan.contains { $0.contains("SEARCH e USING INTEGER PRIMARY KEY (rowid>?)") }, "\(plan)")
            #expect(plan.contains { $0.contains("SEARCH i USING INTEGER PRIMARY KEY (rowid>?)") }, "\(plan)")
        }
    }

    /// A move reads a range of rowids, whatever the number of facts stored before it.
    @Test(.enabled(if: TestApp.backend == .sqlite, "SQLite's events are the outbox's log"))
    func aMoveReadsTheFactsAfterTheCursorOnly() throws {
        let app = try TestApp()
        for sql in [OutboxRepository.eventsAfter, OutboxRepository.installsAfter] {
            let plan = try app.query("EXPLAIN QUERY PLAN " + sql, [0, 10, 10]) { $0.string(3) }
            #expect(plan.first?.contains("USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") == true, "\(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
        }
    }

    /// A move that read an install's facts before the install was erased writes none of their
    /// jobs (the erasure changed the log's generation): nothing about an erased install is sent.
    @Test(.enabled(if: TestApp.backend == .sqlite, "SQLite's events are the outbox's log"))
    func aMoveWritesNoJobOfAnInstallErasedSinceItRead() throws {
        let receiver = try WebhookReceiver()
        let (app, projectID, token, _) = try suite.setUp(receiver, events: #","events":["event.created"]"#, worker: false)
        let installID = try suite.initInstall(app, token: token)
        let other = try suite.initInstall(app, token: token, instance: "inst-2")
        try capture(app, token: token, "purchase")
        try capture(app, token: token, "purchase", instance: "inst-2")  // the newest event, which stays
        let batch = try app.store.outbox.loggedEvents(limit: 100)
        #expect(batch.facts.map(\.installID) == [installID, other])
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(installID)").status == 204)
        let jobs = batch.facts.enumerated().map { index, event in
            OutboxMessage(
                id: "job-\(index)", projectID: projectID, kind: "webhook", targetID: nil, targetURL: receiver.url, eventID: "msg_\(index)",
                eventType: "event.created", payload: "{}", createdAt: event.receivedAt, installID: event.installID)
        }
        #expect(try app.store.outbox.enqueue(jobs, movingLog: batch.position) == false)
        #expect(try app.count("SELECT count(*) FROM outbox_jobs") == 0)
        #expect(try app.store.outbox.loggedEvents(limit: 100).facts.map(\.installID) == [other])
    }

    /// A request's own transaction writes no job for its install or event (the point of the
    /// log); the worker then writes one per endpoint that wants it.
    @Test(.enabled(if: TestApp.backend == .sqlite, "SQLite's events are the outbox's log"))
    func factsJobsAreWrittenByTheWorkerNotTheRequest() throws {
        let receiver = try WebhookReceiver()
        let (app, projectID, token, _) = try suite.setUp(receiver, events: #","events":["event.created"]"#, worker: false)
        #expect(
            try app.request(
                "POST", "/admin/v1/projects/\(projectID)/webhooks",
                json: #"{"url":"\#(receiver.url)","events":["install.created","event.created"]}"#
            ).status == 201)
        _ = try suite.initInstall(app, token: token)
        try capture(app, token: token, "purchase")
        #expect(try app.count("SELECT count(*) FROM outbox_new") == 0)
        #expect(try app.count("SELECT count(*) FROM outbox_jobs") == 0)
        app.startOutbox()
        _ = receiver.wait(for: 3)
        #expect(try app.waitForOutboxIdle())
        let events = receiver.all.filter { $0.json?["type"] as? String == "event.created" }
        #expect(events.count == 2, "one per endpoint")
        #expect(receiver.all.filter { $0.json?["type"] as? String == "install.created" }.count == 1)
        #expect(Set(events.compactMap { $0.headers["webhook-id"] }).count == 1, "one webhook id per event")
        #expect(try app.count("SELECT count(*) FROM outbox_jobs WHERE event_type = 'event.created' AND install_id IS NOT NULL") == 2)
    }
}
