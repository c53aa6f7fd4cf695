import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// A client's test mode (a WarpLink `wl_test_` key, Linkrunner's `debug: true`): its installs are
/// matched and answered like any, stored marked, kept out of every count, listed apart on the
/// dashboard, and never sent to webhooks or postbacks.
@Suite struct TestTrafficTests {
    @Test func testModeInstallsAreMatchedButNeitherCountedNorSent() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)"}"#).status == 201)
        for trigger in ["install", "payment", "purchase"] {
            #expect(
                try app.request(
                    "POST", "/admin/v1/projects/\(projectID)/postbacks",
                    json: #"{"network":"mail","trigger":"\#(trigger)","url":"\#(receiver.base)/postback?i={install_id}"}"#
                ).status == 201)
        }
        app.startOutbox()
        func click(_ ip: String) throws {
            let tap = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": OutboxGuaranteeTests.iPhone, "X-Forwarded-For": ip])
            #expect(tap.status == 302 || tap.status == 200)
        }
        func act(instance: String, ip: String, debug: Bool) throws {
            try click(ip)
            let initBody = body("init", token: token, instance: instance).replacingOccurrences(of: #""debug":false"#, with: #""debug":\#(debug)"#)
                .replacingOccurrences(of: "6D92078A-8246-4BA4-AE5B-76104861E7DC", with: UUID().uuidString)
            let initialized = try app.client("init", initBody, ip: ip)
            #expect(initialized.status == 200, "\(initialized.bodyText)")
            // The test build is attributed to the tap like any install: deferred deep links can be tried out.
            #expect(initialized.bodyText.contains("summer"), "\(initialized.bodyText)")
            #expect(
                try app.client(
                    "capture-event", #"{"token":"\#(token)","install_instance_id":"\#(instance)","event_name":"purchase","event_data":{"amount":5}}"#,
                    ip: ip
                ).status == 200)
            #expect(
                try app.client(
                    "capture-payment",
                    body("capture-payment", token: token, instance: instance)
                        .replacingOccurrences(of: "payment_123", with: "pay-\(instance)"), ip: ip
                ).status == 200)
            #expect(try app.client("trigger", body("trigger", token: token, instance: instance), ip: ip).status == 200)
        }
        try act(instance: "debug-build", ip: "198.51.100.90", debug: true)
        try act(instance: "store-build", ip: "198.51.100.91", debug: false)
        // A WarpLink test key on the same project.
        let testKey = try app.warpLinkKey(projectID, mode: "test")
        try click("198.51.100.92")
        try app.settle()
        let matched = try app.warpLink("POST", "/attribution/match", key: testKey, json: WarpLinkBodies.iOS(), ip: "198.51.100.92")
        #expect(matched.status == 200, "\(matched.bodyText)")
        #expect(matched.json?["matched"] as? Bool == true)
        try app.settle()

        let testInstalls = Set(try app.query("SELECT id FROM installs WHERE is_test") { $0.string(0) })
        #expect(testInstalls.count == 2)
        #expect(try app.count("SELECT count(*) FROM installs WHERE NOT is_test") == 1)

        // Counted: the live install only.
        let totals = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json?["totals"] as? [String: Any])
        #expect(totals["installs"] as? Int == 1)
        #expect(totals["attributed_installs"] as? Int == 1)
        #expect(totals["events"] as? Int == 2, "the live install's purchase and its trigger's signup")
        #expect(totals["signups"] as? Int == 1)
        #expect(totals["paying_installs"] as? Int == 1)
        #expect(totals["payment_revenue"] as? [String: Double] == ["USD": 99.99])
        // A window that is not whole hours reads the rows too, and agrees.
        let now = Date()
        let window = "since=\(Timestamp(now.addingTimeInterval(-1_801)).iso8601)&until=\(Timestamp(now.addingTimeInterval(61)).iso8601)"
        let edges = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/stats?\(window)").json?["totals"] as? [String: Any])
        #expect(edges["installs"] as? Int == 1 && edges["events"] as? Int == 2 && edges["paying_installs"] as? Int == 1, "\(edges)")

        // Sent: the live install's facts only.
        #expect(try app.waitForOutboxIdle())
        let jobs = try app.query("SELECT coalesce(install_id, ''), kind, event_type FROM outbox_jobs") { ($0.string(0), $0.string(1), $0.string(2)) }
        #expect(!jobs.isEmpty)
        #expect(jobs.allSatisfy { !testInstalls.contains($0.0) }, "\(jobs)")
        #expect(
            Set(jobs.map { "\($0.1) \($0.2)" }).isSuperset(of: [
                "webhook install.created", "postback install", "postback payment",
                "postback purchase", "webhook payment.captured",
            ]))

        // Listed apart on the dashboard.
        let dashboard = DashboardClient(app)
        _ = try dashboard.signInWithAdminKey()
        let live = try dashboard.get("/projects/\(projectID)/installs").bodyText
        let test = try dashboard.get("/projects/\(projectID)/installs?traffic=test").bodyText
        for id in testInstalls {
            #expect(!live.contains(id) && test.contains(id))
            #expect(try dashboard.get("/projects/\(projectID)/installs/\(id)").bodyText.contains(#"<span class="badge">Test</span>"#))
        }
    }

    @Test func aTestInstallsPaymentIDNeverBlocksTheLiveInstallsAndAnotherInstallsIsNoDuplicate() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        func initialize(_ instance: String, debug: Bool, idfv: String) throws {
            let initBody = body("init", token: token, instance: instance).replacingOccurrences(of: #""debug":false"#, with: #""debug":\#(debug)"#)
                .replacingOccurrences(of: "6D92078A-8246-4BA4-AE5B-76104861E7DC", with: idfv)
            #expect(try app.client("init", initBody).status == 200)
        }
        try initialize("debug-build", debug: true, idfv: UUID().uuidString)
        try initialize("store-build", debug: false, idfv: UUID().uuidString)
        try initialize("other-phone", debug: false, idfv: UUID().uuidString)
        #expect(try app.client("capture-payment", body("capture-payment", token: token, instance: "debug-build")).status == 200)
        #expect(try app.client("capture-payment", body("capture-payment", token: token, instance: "store-build")).status == 200)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM payments WHERE payment_id = 'payment_123'") == 1)
        #expect(try app.count("SELECT count(*) FROM payments WHERE payment_id = 'test:payment_123'") == 1)
        // The live install's retry is a duplicate; another install's same id is refused, not "stored".
        #expect(try app.client("capture-payment", body("capture-payment", token: token, instance: "store-build")).status == 200)
        let taken = try app.client("capture-payment", body("capture-payment", token: token, instance: "other-phone"))
        #expect(taken.status == 409 && taken.bodyText.contains("another install"), "\(taken.status) \(taken.bodyText)")
        let totals = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json?["totals"] as? [String: Any])
        #expect(totals["payment_revenue"] as? [String: Double] == ["USD": 99.99] && totals["paying_installs"] as? Int == 1, "\(totals)")
        // Each removes its own.
        let removal = #"{"token":"\#(token)","platform":"IOS","install_instance_id":"store-build","user_id":"user_123","payment_id":"payment_123"}"#
        let removed = try app.client("remove-captured-payment", removal)
        #expect(removed.status == 200 && removed.bodyText.contains("1"), "\(removed.bodyText)")
        let testRemoval = removal.replacingOccurrences(of: "store-build", with: "debug-build")
        #expect(try app.client("remove-captured-payment", testRemoval).status == 200)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM payments WHERE removed_at IS NOT NULL") == 2)
    }

    @Test func debugThatIsNotABooleanIsRefusedNamingTheField() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, token) = try app.linkrunnerProject()
        let refused = try app.client("init", body("init", token: token).replacingOccurrences(of: #""debug":false"#, with: #""debug":"yes""#))
        #expect(refused.status == 400)
        #expect(refused.bodyText.contains("debug"))
        #expect(try app.count("SELECT count(*) FROM installs") == 0)
    }
}
