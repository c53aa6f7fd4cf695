import Attribution
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import Synchronization
import TestSupport
import Testing

@testable import API
@testable import App

/// One equality suite for both backends (`scripts/test` runs the API tests on each): a seeded
/// random stream of facts through the real HTTP write paths — clicks of people and bots, installs
/// of both SDK families attributed and organic, test devices, signups, events late and backdated,
/// payments and their removal, SKAN values, a link deleted, installs and users erased — after
/// which every rollup equals a recount of the rows by `Counting` (`attributiond rollups check`).
@Suite struct RollupEqualityTests {
    /// The live schema's triggers: none counts (the rules are `Counting`'s); those left keep rows
    /// in step (a signup flag, an event's charted time, a click's variant) or feed the change log.
    @Test func noTriggerCountsInTheLiveSchema() throws {
        let app = try TestApp()
        let sql =
            TestApp.backend == .sqlite
            ? "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
            : "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname"
        let triggers = try app.query(sql) { $0.string(0) }.filter {
            !$0.hasPrefix("change_log_") && !$0.hasSuffix("_changed") && $0 != "links_edited"
        }
        let kept: Set<String> = [
            "events_charted_at_arrival", "installs_signed_up_by_event", "installs_signup_event_deleted", "installs_signed_up_by_user",
            "installs_take_click_variant", "events_note_user_install",
        ]
        let sqliteOnly: Set<String> = ["events_log_newest_deleted", "installs_log_newest_deleted", "installs_signed_up_at_insert"]
        #expect(Set(triggers) == kept.union(TestApp.backend == .sqlite ? sqliteOnly : []), "\(triggers)")
    }

    /// Events of one install sent at once share writer batches (PostgreSQL reads their install
    /// ahead with the batch): each still counts as first of its name, first on its day and paying
    /// exactly as a recount does.
    @Test func eventsOfOneInstallAtOnceCountAsARecountDoes() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        let body =
            #"{"userAgent":"Shop/2.1 iOS/17.4.1","timezone":"Europe/Paris","language":"fr_FR","screenWidth":1170,"screenHeight":2532,"platform":"iOS","platformVersion":"17.4.1","appVersion":"2.1","deviceId":"dev-batch"}"#
        let installID = try #require(try app.request("POST", "/api/sdk/v1/install", json: body, adminKey: key).json?["installId"] as? String)
        let now = try app.advanceClock(projectID, seconds: 3 * 86_400 + 60)
        let failures = Mutex(0)
        // Threads of their own (not one per core), all sending at once: the writer batches them.
        let group = DispatchGroup()
        for index in 0..<48 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let at = now.adding(seconds: -Int64(index % 4) * 86_400)
                let revenue = index % 5 == 0 ? #","revenue":2.5,"currency":"USD""# : ""
                let json =
                    #"{"installId":"\#(installID)","eventName":"e\#(index % 3)","timestamp":"\#(at.iso8601)","eventData":{"n":\#(index)\#(revenue)}}"#
                if (try? app.request("POST", "/api/sdk/v1/event", json: json, adminKey: key).status) != 200 { failures.withLock { $0 += 1 } }
            }
        }
        group.wait()
        #expect(failures.withLock { $0 } == 0)
        try app.settle()
        let check = try app.store.rollups.check(projectID: projectID, sinceHour: Int64.min / 2, limit: 20)
        #expect(check.differing == 0, "\(check.lines.joined(separator: "\n"))")
        #expect(try app.count("SELECT count(*) FROM events") == 48)
    }

    static let androidChrome =
        "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
    static let bot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"

    @Test(arguments: [7, 23] as [UInt64])
    func aRandomStreamOfFactsLeavesTheRollupsEqualToARecount(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, link) = try app.projectWithLink(testMode: true)
        let token = "lr-token-0123456789abcdef"
        try app.services.app.projects.setToken(projectID: projectID, token: token)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"skan":\#(skanSchemaJSON)}"#).status == 200)
        var codes = ["summer"]
        var linkIDs = [link["id"] as! String]
        for code in ["autumn", "winter"] {
            let made = try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"\#(code)"}"#)
            #expect(made.status == 201)
            codes.append(code)
            linkIDs.append(made.json?["id"] as! String)
        }
        let ips = (1...12).map { "198.51.100.\($0)" }
        let referers = ["https://www.google.com/search?q=shop", "https://t.co/abc", "android-app://com.instagram.android/", ""]
        var instances: [String] = []
        var linkFortyInstalls: [String] = []
        var users: [String] = []
        var payments: [(instance: String, user: String, id: String)] = []
        var now = try app.advanceClock(projectID, seconds: 0)

        // The seed client's bodies: init's as it is (a debug build says so), the others' fields given here.
        func linkrunner(_ endpoint: String, _ instance: String, ip: String, _ extra: String = "") throws {
            let json =
                endpoint == "init"
                ? body("init", token: token, instance: instance).replacingOccurrences(of: #""debug":false"#, with: #""debug":\#(extra == "debug")"#)
                : body("fields", token: token, instance: instance, extra: extra)
            let response = try app.client(endpoint, json, ip: ip)
            #expect(response.status == 200, "\(endpoint): \(response.bodyText)")
        }

        for step in 0..<160 {
            // One link deleted halfway, whatever the draw: its clicks move to "no link".
            switch step == 80 ? 92 : Int.random(in: 0..<100, using: &random) {
            case 0..<30:
                let code = codes.randomElement(using: &random)!
                let userAgent = [safariIPhone, Self.androidChrome, Self.bot].randomElement(using: &random)!
                var headers = ["User-Agent": userAgent, "X-Forwarded-For": ips.randomElement(using: &random)!]
                if let referer = referers.randomElement(using: &random), !referer.isEmpty { headers["Referer"] = referer }
                let response = try app.request("GET", "/\(code)", adminKey: nil, headers: headers)
                #expect(response.status < 500)
            case 30..<45:
                let instance = "IID-\(seed)-\(step)"
                let debug = Int.random(in: 0..<8, using: &random) == 0
                try linkrunner("init", instance, ip: ips.randomElement(using: &random)!, debug ? "debug" : "")
                instances.append(instance)
            case 45..<52:
                let body =
                    #"{"userAgent":"Shop/2.1 iOS/17.4.1","timezone":"Europe/Paris","language":"fr_FR","screenWidth":1170,"screenHeight":2532,"platform":"iOS","platformVersion":"17.4.1","appVersion":"2.1","deviceId":"dev-\#(seed)-\#(step)"}"#
                let response = try app.request(
                    "POST", "/api/sdk/v1/install", json: body, adminKey: key, headers: ["X-Forwarded-For": ips.randomElement(using: &random)!])
                #expect(response.status == 200, "\(response.bodyText)")
                if let id = response.json?["installId"] as? String { linkFortyInstalls.append(id) }
            case 52..<58 where !instances.isEmpty:
                let user = "user-\(Int.random(in: 0..<6, using: &random))"
                try linkrunner("trigger", instances.randomElement(using: &random)!, ip: ips[0], #","user_data":{"id":"\#(user)"}"#)
                users.append(user)
            case 58..<70 where !instances.isEmpty:
                let name = ["open", "level_up", "signup", "purchase"].randomElement(using: &random)!
                let amount = name == "purchase" ? #","event_data":{"amount":\#(Int.random(in: 1...90, using: &random)),"currency":"EUR"}"# : ""
                try linkrunner("capture-event", instances.randomElement(using: &random)!, ip: ips[0], #","event_name":"\#(name)""# + amount)
            case 70..<78 where !linkFortyInstalls.isEmpty:
                // Late from an offline queue, or backdated past the install (charted at the install).
                let at = now.adding(seconds: -Int64.random(in: 0...(3 * 86_400), using: &random))
                let revenue =
                    Bool.random(using: &random) ? #","eventData":{"revenue":\#(Int.random(in: 1...50, using: &random)).5,"currency":"USD"}"# : ""
                let installID = linkFortyInstalls.randomElement(using: &random)!
                let name = ["open", "signup", "buy"].randomElement(using: &random)!
                let response = try app.request(
                    "POST", "/api/sdk/v1/event",
                    json: #"{"installId":"\#(installID)","eventName":"\#(name)","timestamp":"\#(at.iso8601)"\#(revenue)}"#, adminKey: key)
                #expect(response.status == 200, "\(response.bodyText)")
            case 78..<86 where !instances.isEmpty:
                let instance = instances.randomElement(using: &random)!
                let user = "payer-\(Int.random(in: 0..<4, using: &random))"
                let id = "pay-\(step)"
                try linkrunner(
                    "capture-payment", instance, ip: ips[0],
                    #","user_id":"\#(user)","amount":\#(Int.random(in: 1...40, using: &random)),"payment_id":"\#(id)","currency":"USD""#)
                payments.append((instance, user, id))
            case 86..<89 where !payments.isEmpty:
                let payment = payments.remove(at: Int.random(in: 0..<payments.count, using: &random))
                try linkrunner(
                    "remove-captured-payment", payment.instance, ip: ips[0], #","user_id":"\#(payment.user)","payment_id":"\#(payment.id)""#)
            case 89..<91 where !linkFortyInstalls.isEmpty:
                let id = linkFortyInstalls.remove(at: Int.random(in: 0..<linkFortyInstalls.count, using: &random))
                #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(id)").status == 204)
            case 91..<92 where !users.isEmpty:
                let user = users.randomElement(using: &random)!
                #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/users/\(user)").status < 300)
                users.removeAll { $0 == user }
            case 92..<93 where linkIDs.count > 1:
                let index = Int.random(in: 1..<linkIDs.count, using: &random)
                #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/links/\(linkIDs[index])").status == 204)
                linkIDs.remove(at: index)
                codes.remove(at: index)
            default:
                now = try app.advanceClock(projectID, seconds: Double(Int.random(in: 600...(30 * 3_600), using: &random)))
            }
        }
        try app.settle()
        let check = try app.store.rollups.check(projectID: nil, sinceHour: Int64.min / 2, limit: 20)
        #expect(check.differing == 0, "\(check.lines.joined(separator: "\n"))")
        // The stream reached every kind of fact.
        for (what, sql) in [
            ("attributed installs", "SELECT count(*) FROM installs WHERE attributed AND NOT is_test"),
            ("organic installs", "SELECT count(*) FROM installs WHERE NOT attributed"),
            ("test installs", "SELECT count(*) FROM installs WHERE is_test"),
            ("bot clicks", "SELECT count(*) FROM clicks WHERE is_bot"),
            ("events with revenue", "SELECT count(*) FROM events WHERE revenue IS NOT NULL"),
            ("signed-up installs", "SELECT count(*) FROM installs WHERE signed_up"),
            ("live payments", "SELECT count(*) FROM payments WHERE removed_at IS NULL"),
            ("removed payments", "SELECT count(*) FROM payments WHERE removed_at IS NOT NULL"),
            ("SKAN values", "SELECT count(*) FROM skan_state"),
            ("clicks of a deleted link", "SELECT count(*) FROM clicks WHERE link_id IS NULL"),
        ] {
            #expect(try app.count(sql) > 0, "no \(what)")
        }
    }
}
