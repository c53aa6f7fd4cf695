import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// Moves a test-mode project's clock to "t hours after the driver was made", through the admin API.
final class ProjectClockDriver {
    let app: TestApp
    let projectID: String
    private var elapsedSeconds = 0.0

    init(app: TestApp, projectID: String) {
        self.app = app
        self.projectID = projectID
    }

    func at(hours: Double) throws { try at(seconds: hours * 3600) }

    func at(seconds: Double) throws {
        if seconds > elapsedSeconds { try app.advanceClock(projectID, seconds: seconds - elapsedSeconds) }
        elapsedSeconds = seconds
    }
}

let chromeIPhone =
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/123.0.6312.52 Mobile/15E148 Safari/604.1"

@Suite struct TestClockTests {
    @Test func aTestModeClockStandsStillMovesOnlyForwardAndIsSaved() throws {
        let app = try TestApp()
        let before = SystemClock().now()
        let project = try app.createProject("Sandbox", extra: #","test_mode":true"#)
        let id = try #require(project["id"] as? String)
        #expect(project["test_mode"] as? Bool == true)

        let first = try #require(try app.request("GET", "/admin/v1/projects/\(id)/clock").json)
        let start = try #require(first["now_ms"] as? Int)
        #expect(abs(Int64(start) - before.milliseconds) < 60_000, "starts at real time")
        Thread.sleep(forTimeInterval: 0.02)  // about time: real time passes, the project's clock does not
        #expect(try app.request("GET", "/admin/v1/projects/\(id)/clock").json?["now_ms"] as? Int == start, "stands still")

        #expect(try app.advanceClock(id, seconds: 3600).milliseconds == Int64(start) + 3_600_000)
        let jumped = try app.request("POST", "/admin/v1/projects/\(id)/clock", json: #"{"now":"2031-01-01T00:00:00Z"}"#)
        #expect(jumped.status == 200 && jumped.json?["now"] as? String == "2031-01-01T00:00:00Z", "\(jumped.bodyText)")

        // Backward, by either spelling: 409 and the clock stays.
        let back = try app.request("POST", "/admin/v1/projects/\(id)/clock", json: #"{"now":"2030-12-31T23:59:59Z"}"#)
        #expect(back.status == 409 && back.bodyText.contains("only move forward"), "\(back.bodyText)")
        #expect(try app.request("POST", "/admin/v1/projects/\(id)/clock", json: #"{"advance_seconds":-1}"#).status == 409)
        #expect(try app.request("GET", "/admin/v1/projects/\(id)/clock").json?["now"] as? String == "2031-01-01T00:00:00Z")

        // Malformed bodies name the problem.
        for (body, status, word) in [
            (#"{"advance_seconds":1,"now":"2032-01-01T00:00:00Z"}"#, 400, "not both"), ("{}", 400, "advance_seconds"),
            (#"{"advance_seconds":"10"}"#, 422, "advance_seconds"), (#"{"now":"tomorrow"}"#, 422, "now"),
            (#"{"speed":2}"#, 422, "speed"), (#"{"advance_seconds":1e300}"#, 422, "advance_seconds"), ("[1]", 400, "object"),
        ] {
            let response = try app.request("POST", "/admin/v1/projects/\(id)/clock", json: body)
            #expect(response.status == status && response.bodyText.contains(word), "\(body) → \(response.status) \(response.bodyText)")
        }

        // Saved: a server started afresh on the same database reads the same time.
        let saved = try #require(try app.queryOne("SELECT clock_ms FROM projects WHERE id = ?", id) { $0.int(0) })
        #expect(saved == Timestamp(iso8601: "2031-01-01T00:00:00Z")!.milliseconds)
        let restarted = Services(store: app.store, adminKey: nil)
        #expect(restarted.app.clocks.now(projectID: id) == Timestamp(milliseconds: saved))
    }

    @Test func concurrentAdvancesAllCount() throws {
        let app = try TestApp()
        let id = try #require(try app.createProject("Sandbox", extra: #","test_mode":true"#)["id"] as? String)
        let start = try #require(try app.request("GET", "/admin/v1/projects/\(id)/clock").json?["now_ms"] as? Int)
        DispatchQueue.concurrentPerform(iterations: 10) { _ in _ = try? app.advanceClock(id, seconds: 60) }
        #expect(try app.request("GET", "/admin/v1/projects/\(id)/clock").json?["now_ms"] as? Int == start + 600_000)
    }

    @Test func onlyTestModeProjectsHaveAClockAndTheModeIsFixedAtCreation() throws {
        let app = try TestApp()
        let live = try #require(try app.createProject("Live")["id"] as? String)
        let moved = try app.request("POST", "/admin/v1/projects/\(live)/clock", json: #"{"advance_seconds":60}"#)
        #expect(moved.status == 409 && moved.bodyText.contains("not in test mode"), "\(moved.bodyText)")
        let read = try #require(try app.request("GET", "/admin/v1/projects/\(live)/clock").json)
        #expect(read["test_mode"] as? Bool == false)
        #expect(abs(Int64(read["now_ms"] as? Int ?? 0) - SystemClock().now().milliseconds) < 60_000)

        let switched = try app.request("PATCH", "/admin/v1/projects/\(live)", json: #"{"test_mode":true}"#)
        #expect(switched.status == 409 && switched.bodyText.contains("test_mode"), "\(switched.bodyText)")
        #expect(try app.request("PATCH", "/admin/v1/projects/\(live)", json: #"{"test_mode":false,"min_confidence":0.4}"#).status == 200)
        let sandbox = try #require(try app.createProject("Sandbox", extra: #","test_mode":true"#)["id"] as? String)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(sandbox)", json: #"{"test_mode":false}"#).status == 409)
        #expect(try app.services.app.projects.find(id: live)?.testMode == false)
        #expect(try app.request("GET", "/admin/v1/projects/\(UUID().uuidString.lowercased())/clock").status == 404)
    }

    /// matching.md #3, #4, #5, #9, #10: one iPhone click (or two browsers' clicks) from the same
    /// address, then a LinkForty install after the test clock has moved on.
    @Test(arguments: [
        (example: 3, clicksHoursBefore: [1.0], attributed: true, score: 65.0),
        (example: 4, clicksHoursBefore: [30.0], attributed: false, score: 40.0),
        (example: 5, clicksHoursBefore: [80.0], attributed: false, score: 0.0),
        (example: 9, clicksHoursBefore: [30.0, 20.0], attributed: true, score: 50.0),
        (example: 10, clicksHoursBefore: [50.0, 40.0], attributed: false, score: 25.0),
    ])
    func timeDependentMatchingExamples(example: Int, clicksHoursBefore: [Double], attributed: Bool, score: Double) throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        let clock = ProjectClockDriver(app: app, projectID: projectID)
        let installAt = clicksHoursBefore.max()!
        var clickIDs: [String] = []
        for (index, hoursBefore) in clicksHoursBefore.enumerated() {
            try clock.at(hours: installAt - hoursBefore)
            let click = try app.request(
                "GET", "/summer", adminKey: nil,
                headers: ["User-Agent": index == 0 ? safariIPhone : chromeIPhone, "X-Forwarded-For": "198.51.100.9"])
            clickIDs.append(try #require(click.header("X-Click-Id")))
        }
        try clock.at(hours: installAt)
        let response = try app.install(ip: "198.51.100.9", key: key)
        #expect(response.status == 200, "\(response.bodyText)")
        let body = try #require(response.json)
        #expect(body["attributed"] as? Bool == attributed, "example \(example): \(response.bodyText)")
        #expect(body["confidenceScore"] as? Double == score, "example \(example): \(response.bodyText)")
        let clickID = (body["deepLinkData"] as? [String: Any])?["clickId"] as? String
        #expect(clickID == (attributed ? clickIDs.last : nil), "example \(example): the newest click wins")
        if example == 5 { #expect((body["matchedFactors"] as? [Any])?.isEmpty == true) }

        // Clicks and the install carry the project's time, not the wall clock's.
        let projectNow = try app.request("GET", "/admin/v1/projects/\(projectID)/clock").json?["now_ms"] as? Int
        #expect(try app.count("SELECT max(created_at) FROM installs") == Int64(projectNow ?? 0))
        #expect(try app.count("SELECT min(created_at) FROM clicks") == Int64(projectNow ?? 0) - Int64(installAt * 3_600_000))
    }

    @Test func theBeaconExpiresByTheProjectClock() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink(testMode: true)
        func click() throws -> String {
            try #require(try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": safariIPhone]).header("X-Click-Id"))
        }
        let beacon = #"{"sw":390,"sh":844,"dpr":3,"tz":"Europe/Paris","tzo":-60,"langs":["fr-FR"]}"#
        let late = try click()
        try app.advanceClock(projectID, seconds: 601)
        #expect(try app.request("POST", "/c/\(late)", json: beacon, adminKey: nil).status == 404)
        let onTime = try click()
        try app.advanceClock(projectID, seconds: 599)
        #expect(try app.request("POST", "/c/\(onTime)", json: beacon, adminKey: nil).status == 204)
        #expect(try app.count("SELECT count(*) FROM clicks WHERE timezone IS NOT NULL") == 1)
    }

    @Test func anotherProjectKeepsTheServerClock() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let sandbox = try #require(try app.createProject("Sandbox", extra: #","test_mode":true"#)["id"] as? String)
        try app.advanceClock(sandbox, seconds: 30 * 86_400)
        let (_, token) = try app.linkrunnerProject()
        let before = SystemClock().now().milliseconds
        #expect(try app.client("init", #"{"token":"\#(token)","platform":"IOS","install_instance_id":"live-1"}"#).status == 200)
        let created = try app.count("SELECT created_at FROM installs WHERE install_instance_id = 'live-1'")
        #expect(created >= before && created <= SystemClock().now().milliseconds)
    }

    /// skan.md #10–#14 through the Linkrunner endpoints, each install on a test clock.
    @Test func skanVectors10To14() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject(testMode: true)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"skan":\#(skanSchemaJSON)}"#).status == 200)
        let clock = ProjectClockDriver(app: app, projectID: projectID)
        func call(_ endpoint: String, _ instance: String, _ extra: String = "") throws -> String {
            let device = #""device_data":{"device":"iPhone","system_version":"17.4","idfv":"IDFV-\#(instance)"}"#
            let response = try app.client(
                endpoint, #"{"token":"\#(token)","platform":"IOS","install_instance_id":"\#(instance)",\#(device)\#(extra)}"#)
            #expect(response.status == 200, "\(response.bodyText)")
            let text = response.bodyText
            guard let fine = text.firstMatch(of: /"fine_conversion_value":(\d+)[,}]/)?.1,
                let coarse = text.firstMatch(of: /"coarse_conversion_value":"(low|medium|high)"/)?.1,
                let lock = text.firstMatch(of: /"lock_postback":(true|false)[,}]/)?.1
            else {
                return text.contains("conversion_value") || text.contains("lock_postback") ? "partial keys: \(text)" : "no keys"
            }
            return "\(fine)/\(coarse)/\(lock)"
        }
        func pay(_ instance: String, _ amount: Double, _ id: String) throws -> String {
            try call("capture-payment", instance, #","user_id":"u-\#(instance)","amount":\#(amount),"payment_id":"\#(id)""#)
        }

        try clock.at(hours: 0)
        for instance in ["A", "B", "C", "D"] { #expect(try call("init", instance) == "0/low/false") }
        // W1 of A and B ends at fine 26: signup, then a purchase of 7 (revenue bucket 2).
        try clock.at(hours: 1)
        for instance in ["A", "B"] { _ = try call("trigger", instance, #","user_data":{"id":"u-\#(instance)"}"#) }
        try clock.at(hours: 2)
        #expect(try pay("A", 7, "a1") == "26/medium/false")
        #expect(try pay("B", 7, "b1") == "26/medium/false")

        try clock.at(seconds: 48 * 3600 - 1)
        #expect(try pay("D", 30, "d1") == "20/high/false")  // 13b: still W1
        try clock.at(hours: 48)
        #expect(try pay("C", 30, "c1") == "0/high/false")  // 13: W2 from exactly 48 h
        try clock.at(hours: 49)
        #expect(try call("capture-event", "A", #","event_name":"app_open""#) == "26/low/false")  // 10
        try clock.at(hours: 50)
        #expect(try pay("A", 15, "a2") == "26/medium/false")  // 11
        for (hour, expected) in [(60.0, "26/low/false"), (61, "26/low/false"), (62, "26/medium/false")] {  // 12
            try clock.at(hours: hour)
            #expect(try call("capture-event", "B", #","event_name":"level_complete""#) == expected, "t\(hour)")
        }
        try clock.at(hours: 200)
        #expect(try pay("A", 60, "a3") == "26/high/false")  // 14: W3
        try clock.at(hours: 840)
        #expect(try call("capture-event", "A", #","event_name":"app_open""#) == "no keys")  // 14: past the SKAN period
    }
}
