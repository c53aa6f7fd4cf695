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

/// campaign_data read the strict way the Linkrunner iOS SDK does: string id/name/type, known
/// enums, ISO 8601 dates without fractional seconds (`.iso8601` rejects them).
private struct StrictCampaignData: Decodable {
    enum CampaignType: String, Decodable {
        case organic = "ORGANIC"
        case inorganic = "INORGANIC"
    }
    enum AdNetwork: String, Decodable {
        case meta = "META"
        case google = "GOOGLE"
    }
    let id: String
    let name: String
    let type: CampaignType
    let ad_network: AdNetwork?
    let group_name: String?
    let asset_name: String?
    let installed_at: Date?
    let store_click_at: Date?
}

private struct StrictAttribution: Decodable {
    let attribution_source: String
    let campaign_data: StrictCampaignData?
    let deeplink: String?
}

private struct Envelope<T: Decodable>: Decodable {
    let status: Int
    let msg: String
    let data: T?
}

private func strictDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}

/// `device_data` exactly as the full seed client (002) builds it on an iPhone 13.
private let seedDeviceData = #"""
    {"device":"iPhone","device_name":"Ana's iPhone","system_version":"17.4.1","device_display":{"width":390,"height":844,"scale":3},
     "idfv":"6D92078A-8246-4BA4-AE5B-76104861E7DC","brand":"Apple","manufacturer":"Apple","install_instance_id":"IID",
     "bundle_id":"com.example.shop","version":"2.1","build_number":"42","locale":"fr_FR","language":"fr","country":"FR",
     "timezone":"Europe/Paris","timezone_offset":60,"adservices_attribution_token":"tok=="}
    """#

func body(_ endpoint: String, token: String, instance: String = "IID-1", extra: String = "") -> String {
    let device = seedDeviceData.replacingOccurrences(of: "\"IID\"", with: "\"\(instance)\"")
    switch endpoint {
    case "init":
        return
            #"{"token":"\#(token)","platform":"IOS","install_instance_id":"\#(instance)","package_version":"ios-rest-1.0","app_version":"2.1","device_data":\#(device),"debug":false\#(extra)}"#
    case "trigger":
        return
            #"{"token":"\#(token)","platform":"IOS","install_instance_id":"\#(instance)","user_data":{"id":"user_123","name":"Ana","email":"ana@example.com"},"data":{"device_data":\#(device)},"time_since_app_install":42.5\#(extra)}"#
    case "capture-payment":
        return
            #"{"token":"\#(token)","platform":"IOS","install_instance_id":"\#(instance)","amount":99.99,"user_id":"user_123","type":"FIRST_PAYMENT","status":"PAYMENT_COMPLETED","payment_id":"payment_123","event_data":{"plan":"pro"},"time_since_app_install":120,"data":{"device_data":\#(device)}\#(extra)}"#
    default:
        return #"{"token":"\#(token)","platform":"IOS","install_instance_id":"\#(instance)","device_data":\#(device)\#(extra)}"#
    }
}

extension TestApp {
    func client(_ endpoint: String, _ json: String, ip: String = "198.51.100.80") throws -> TestResponse {
        try request("POST", "/api/client/\(endpoint)", json: json, adminKey: nil, headers: ["X-Forwarded-For": ip])
    }

    /// A project with a link, and a token we know (the admin API shows tokens only at creation).
    func linkrunnerProject(testMode: Bool = false) throws -> (projectID: String, token: String) {
        let (projectID, _, _) = try projectWithLink(testMode: testMode)
        let token = "lr-token-0123456789abcdef"
        try services.app.projects.setToken(projectID: projectID, token: token)
        return (projectID, token)
    }
}

@Suite struct LinkrunnerTests {
    @Test func initThenPollingAttributionDataFindsTheCampaign() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, token) = try app.linkrunnerProject()
        _ = try app.clickWithBeacon(ip: "198.51.100.80")
        let initialized = try app.client("init", body("init", token: token))
        #expect(initialized.status == 200)
        let initEnvelope = try #require(initialized.json)
        #expect(initEnvelope["status"] as? Int == 200)
        let initData = try #require(initEnvelope["data"] as? [String: Any])
        #expect(initData["install_id"] is String)
        #expect(initData["attribution_source"] as? String == "INORGANIC")
        #expect(initData["deeplink"] as? String == "shop://product/42")

        // The seed client polls attribution-data until campaign_data is there.
        let polled = try app.client("attribution-data", body("attribution-data", token: token))
        let decoded = try strictDecoder().decode(Envelope<StrictAttribution>.self, from: Data(polled.body))
        #expect(decoded.status == 200)
        let campaign = try #require(decoded.data?.campaign_data)
        #expect(campaign.type == .inorganic && campaign.name == "summer")
        #expect(campaign.group_name == nil && campaign.installed_at != nil && campaign.store_click_at != nil)
        let match = try #require((polled.json?["data"] as? [String: Any])?["match"] as? [String: Any])
        #expect(match["type"] as? String == "probabilistic")
        #expect(match["confidence"] as? Double == 0.85)
        #expect((match["matched_factors"] as? [String])?.contains("device") == true)
    }

    @Test func anInstallWhoseLinkWasDeletedIsAnsweredAndCountedAsAttributedAlike() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        _ = try app.clickWithBeacon(ip: "198.51.100.80")
        let initialized = try #require(try app.client("init", body("init", token: token)).json?["data"] as? [String: Any])
        #expect(initialized["attribution_source"] as? String == "INORGANIC")
        let linkID = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/links").jsonArray?.first?["id"] as? String)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/links/\(linkID)").status == 204)
        let polled = try #require(try app.client("attribution-data", body("attribution-data", token: token)).json?["data"] as? [String: Any])
        #expect(polled["attribution_source"] as? String == "INORGANIC", "\(polled)")
        let campaign = try #require(polled["campaign_data"] as? [String: Any])
        #expect(
            campaign["type"] as? String == "INORGANIC" && campaign["name"] as? String == "Deleted link" && polled["deeplink"] is NSNull, "\(polled)")
        let totals = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json?["totals"] as? [String: Any])
        #expect(totals["attributed_installs"] as? Int == 1, "\(totals)")
    }

    @Test func aLinkWithAPathButNoSchemeHandsTheAppItsUniversalLink() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink(
            #"{"short_code":"summer","deep_link_path":"/product/42","deep_link_parameters":{"ref":"mail"}}"#)
        let token = "lr-token-0123456789abcdef"
        try app.services.app.projects.setToken(projectID: projectID, token: token)
        _ = try app.clickWithBeacon(ip: "198.51.100.80")
        let initialized = try #require(try app.client("init", body("init", token: token)).json?["data"] as? [String: Any])
        #expect(initialized["attribution_source"] as? String == "INORGANIC")
        // Once null: the path never reached an app without a custom scheme.
        #expect(initialized["deeplink"] as? String == "http://test/product/42?ref=mail")
        let polled = try #require(try app.client("attribution-data", body("attribution-data", token: token)).json?["data"] as? [String: Any])
        #expect(polled["deeplink"] as? String == "http://test/product/42?ref=mail")
        let opened = try app.client(
            "handle-deeplink", #"{"token":"\#(token)","platform":"IOS","install_instance_id":"IID-1","deeplink_url":"http://test/summer"}"#)
        #expect((opened.json?["data"] as? [String: Any])?["deeplink"] as? String == "http://test/product/42?ref=mail")
    }

    @Test func organicInstallsGetAnOrganicCampaign() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, token) = try app.linkrunnerProject()
        #expect(try app.client("init", body("init", token: token), ip: "203.0.113.90").status == 200)
        let polled = try app.client("attribution-data", body("attribution-data", token: token), ip: "203.0.113.90")
        let decoded = try strictDecoder().decode(Envelope<StrictAttribution>.self, from: Data(polled.body))
        #expect(decoded.data?.attribution_source == "ORGANIC")
        #expect(decoded.data?.campaign_data?.type == .organic)
        #expect(decoded.data?.deeplink == nil)
    }

    @Test func retriedInitsConcurrentlyCreateOneInstall() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, token) = try app.linkrunnerProject()
        let ids = Mutex<Set<String>>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            if let data = try? app.client("init", body("init", token: token)).json?["data"] as? [String: Any], let id = data["install_id"] as? String
            {
                ids.withLock { _ = $0.insert(id) }
            }
        }
        #expect(ids.withLock { $0.count } == 1)
        #expect(try app.count("SELECT count(*) FROM installs") == 1)
    }

    @Test func aRelaunchWithinTheHourLeavesLastSeenAsItIs() throws {
        let app = try TestApp()
        let (projectID, token) = try app.linkrunnerProject(testMode: true)
        let lastSeen = "SELECT last_seen_at FROM installs WHERE install_instance_id = 'IID-1'"
        #expect(try app.client("init", body("init", token: token)).status == 200)
        let installed = try app.count(lastSeen)

        _ = try app.advanceClock(projectID, seconds: 59 * 60)
        #expect(try app.client("init", body("init", token: token)).status == 200)
        #expect(try app.count(lastSeen) == installed, "59 minutes later: not rewritten")

        let hourLater = try app.advanceClock(projectID, seconds: 60)
        #expect(try app.client("init", body("init", token: token)).status == 200)
        #expect(try app.count(lastSeen) == hourLater.milliseconds, "an hour later: moved")
        #expect(try app.count("SELECT count(*) FROM installs") == 1)
    }

    /// SQLite stores it; PostgreSQL's text cannot hold a NUL, so there it is refused by name (a
    /// value cut short at the NUL would have been another install's).
    @Test func anInstanceIDWithANULIsFoundAgain() throws {
        let app = try TestApp()
        let (_, token) = try app.linkrunnerProject()
        let json = #"{"token":"\#(token)","platform":"IOS","install_instance_id":"a\u0000b"}"#
        if TestApp.backend == .postgres {
            let refused = try app.client("init", json)
            #expect(refused.status == 422 && refused.bodyText.contains("NUL"), "\(refused.bodyText)")
            #expect(try app.count("SELECT count(*) FROM installs") == 0)
            return
        }
        let first = try app.client("init", json)
        let again = try app.client("init", json)
        #expect(first.status == 200 && again.status == 200, "\(again.bodyText)")
        let ids = [first, again].map { ($0.json?["data"] as? [String: Any])?["install_id"] as? String }
        #expect(ids[0] != nil && ids[0] == ids[1])
        #expect(try app.count("SELECT count(*) FROM installs WHERE install_instance_id = 'a' || char(0) || 'b'") == 1)
    }

    @Test func everyEndpointTakesTheSeedClientsBodies() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.client("init", body("init", token: token)).status == 200)

        let trigger = try app.client("trigger", body("trigger", token: token))
        #expect(trigger.status == 200 && trigger.json?["msg"] is String)
        #expect(try app.count("SELECT count(*) FROM users WHERE user_id = 'user_123' AND email = 'ana@example.com'") == 1)
        #expect(
            try app.client(
                "set-user-data",
                #"{"token":"\#(token)","platform":"IOS","install_instance_id":"IID-1","user_data":{"id":"user_123","phone":"+33600000000"}}"#
            ).status == 200)
        #expect(try app.count("SELECT count(*) FROM users WHERE phone = '+33600000000' AND email = 'ana@example.com'") == 1)

        let event =
            #"{"token":"\#(token)","platform":"IOS","install_instance_id":"IID-1","event_name":"purchase_initiated","event_data":{"product_id":"12345","amount":99.99},"event_id":"evt-1","time_since_app_install":30}"#
        let first = try app.client("capture-event", event)
        let again = try app.client("capture-event", event)
        #expect(first.status == 200)
        #expect((first.json?["data"] as? [String: Any])?["event_id"] as? String == (again.json?["data"] as? [String: Any])?["event_id"] as? String)
        #expect(try app.count("SELECT count(*) FROM events WHERE revenue = 99.99 AND currency = 'USD' AND user_id = 'user_123'") == 1)

        let payment = try app.client("capture-payment", body("capture-payment", token: token))
        #expect(payment.status == 200)
        #expect((payment.json?["data"] as? [String: Any])?["payment_id"] as? String == "payment_123")
        #expect(try app.client("capture-payment", body("capture-payment", token: token)).status == 200)  // a retry
        #expect(try app.count("SELECT count(*) FROM payments WHERE payment_id = 'payment_123' AND amount = 99.99 AND type = 'FIRST_PAYMENT'") == 1)
        let removed = try app.client(
            "remove-captured-payment",
            #"{"token":"\#(token)","platform":"IOS","install_instance_id":"IID-1","user_id":"user_123","payment_id":"payment_123","data":{"device_data":{}}}"#
        )
        #expect((removed.json?["data"] as? [String: Any])?["removed"] as? Int == 1)
        #expect(try app.count("SELECT count(*) FROM payments WHERE removed_at IS NOT NULL") == 1)  // kept for audit

        for (endpoint, extra) in [
            ("update-push-token", #","push_token":"apns-abc""#), ("integrations", #","integration_info":{"clevertap_id":"ct-1"}"#),
            ("customer-user-id", #","user_id":"cust-9""#), ("deeplink-triggered", ""),
        ] {
            let response = try app.client(endpoint, #"{"token":"\#(token)","platform":"IOS","install_instance_id":"IID-1"\#(extra)}"#)
            #expect(response.status == 200, "\(endpoint): \(response.bodyText)")
            #expect(response.json?["status"] as? Int == 200)
        }
        #expect(
            try app.count(
                "SELECT count(*) FROM installs WHERE push_token = 'apns-abc' AND integrations LIKE '%ct-1%' AND user_id = 'cust-9' AND deeplink_opened_at IS NOT NULL"
            ) == 1)

        let stats = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json?["totals"] as? [String: Any])
        #expect(stats["event_revenue"] as? [String: Double] == ["USD": 99.99])  // the event's amount
        #expect(stats["payment_revenue"] as? [String: Double] == [:])  // the removed payment is out
    }

    @Test func concurrentDuplicatePaymentsAreStoredOnce() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, token) = try app.linkrunnerProject()
        #expect(try app.client("init", body("init", token: token)).status == 200)
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let status = (try? app.client("capture-payment", body("capture-payment", token: token)).status) ?? 0
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 } == Array(repeating: 200, count: 8))
        #expect(try app.count("SELECT count(*) FROM payments") == 1)
    }

    @Test func handleDeeplinkRecordsAnAppClickThatMakesALaterInstallDeterministic() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, token) = try app.linkrunnerProject()
        #expect(try app.client("init", body("init", token: token, instance: "FIRST")).status == 200)
        let handled = try app.client(
            "handle-deeplink",
            body(
                "handle-deeplink", token: token, instance: "FIRST",
                extra: #","deeplink_url":"https://go.example.com/summer?utm_source=push""#))
        let data = try #require(handled.json?["data"] as? [String: Any])
        #expect(data["is_linkrunner"] as? Bool == true)
        #expect(data["deeplink"] as? String == "shop://product/42")
        #expect((data["campaign_data"] as? [String: Any])?["id"] is String)
        // The app is removed and installed again later, from another network: the idfv matches (#13).
        let reinstall = try app.client("init", body("init", token: token, instance: "SECOND"), ip: "192.0.2.200")
        let polled = try app.client("attribution-data", body("attribution-data", token: token, instance: "SECOND"), ip: "192.0.2.200")
        #expect(reinstall.status == 200)
        let match = try #require((polled.json?["data"] as? [String: Any])?["match"] as? [String: Any])
        #expect(match["type"] as? String == "deterministic" && match["confidence"] as? Double == 1)
        #expect(match["matched_factors"] as? [String] == ["idfv"])
        #expect(try app.count("SELECT reinstall FROM installs WHERE install_instance_id = 'SECOND'") == 1)
        let foreign = try app.client(
            "handle-deeplink", body("handle-deeplink", token: token, instance: "FIRST", extra: #","deeplink_url":"https://elsewhere.example/x/y/z""#))
        #expect((foreign.json?["data"] as? [String: Any])?["is_linkrunner"] as? Bool == false)
    }

    @Test func errorsComeInTheEnvelopeWithTheRightStatus() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, token) = try app.linkrunnerProject()
        let cases: [(String, String, Int, String)] = [
            ("init", #"{"platform":"IOS","install_instance_id":"X"}"#, 401, "token"),
            ("init", #"{"token":"nope","install_instance_id":"X"}"#, 401, "unknown project token"),
            ("init", #"{"token":"\#(token)"}"#, 400, "install_instance_id"),
            (
                "init", #"{"token":"\#(token)","install_instance_id":"X","device_data":{"timezone_offset":"east"}}"#, 400,
                "device_data.timezone_offset"
            ),
            (
                "init", #"{"token":"\#(token)","install_instance_id":"X","device_data":{"device_display":{"width":"wide"}}}"#, 400,
                "device_data.device_display.width"
            ),
            // 1e300 points once trapped converting to pixels and took the server down.
            (
                "init", #"{"token":"\#(token)","install_instance_id":"X","device_data":{"device_display":{"width":1e300,"height":844,"scale":3}}}"#,
                422, "device_data.device_display.width: must be a number of points up to 20000"
            ),
            (
                "init", #"{"token":"\#(token)","install_instance_id":"X","device_data":{"device_display":{"width":390,"height":20001}}}"#,
                422, "device_data.device_display.height"
            ),
            (
                "capture-event", #"{"token":"\#(token)","install_instance_id":"X","event_name":"x","event_data":{"amount":1e13}}"#, 422,
                "event_data.amount: must be a finite number below 10^12"
            ),
            (
                "capture-event", #"{"token":"\#(token)","install_instance_id":"never-initialised","event_name":"x"}"#, 404,
                "call /api/client/init first"
            ),
            ("attribution-data", #"{"token":"\#(token)","install_instance_id":"never-initialised"}"#, 404, "init"),
            ("init", "not json", 400, "JSON"),
        ]
        for (endpoint, json, status, fragment) in cases {
            let response = try app.client(endpoint, json)
            #expect(response.status == status, "\(endpoint) \(json): \(response.bodyText)")
            #expect(response.json?["status"] as? Int == status)
            #expect(response.json?["data"] is NSNull)
            #expect((response.json?["msg"] as? String)?.contains(fragment) == true, "\(response.bodyText)")
        }
        _ = try app.client("init", body("init", token: token))
        let missing: [(String, String)] = [
            ("capture-event", "event_name"), ("capture-payment", "user_id"), ("remove-captured-payment", "user_id"),
            ("update-push-token", "push_token"), ("integrations", "integration_info"), ("handle-deeplink", "deeplink_url"),
        ]
        for (endpoint, field) in missing {
            let response = try app.client(endpoint, #"{"token":"\#(token)","install_instance_id":"IID-1"}"#)
            #expect(response.status == 400, "\(endpoint)")
            #expect((response.json?["msg"] as? String)?.contains(field) == true, "\(endpoint): \(response.bodyText)")
        }
        #expect(try app.client("capture-payment", #"{"token":"\#(token)","install_instance_id":"IID-1","user_id":"u","amount":"99"}"#).status == 400)
        #expect(try app.count("SELECT count(*) FROM payments") == 0)
    }
}

/// base64(HMAC-SHA256(secret, "<ts>\n" + base64(SHA-256(body)))) computed by the openssl command,
/// independently of our own code.
private func opensslSignature(body: String, timestamp: String, secret: String) throws -> String {
    func run(_ arguments: [String], input: Data) throws -> Data {
        try ChildProcess.run("/usr/bin/openssl", arguments, input: input).stdout
    }
    let contentHash = try run(["dgst", "-sha256", "-binary"], input: Data(body.utf8)).base64EncodedString()
    return try run(["dgst", "-sha256", "-hmac", secret, "-binary"], input: Data("\(timestamp)\n\(contentHash)".utf8)).base64EncodedString()
}

@Suite(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "needs the openssl command"))
struct LinkrunnerSigningTests {
    @Test func signedRequestsAreCheckedPerTheProjectsSigningMode() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        let key = try #require(try app.request("POST", "/admin/v1/projects/\(projectID)/signing-keys").json)
        let keyID = try #require(key["key_id"] as? String)
        let secret = try #require(key["secret"] as? String)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"signing":"required"}"#).status == 200)

        let json = body("init", token: token)
        func send(_ headers: [String: String]) throws -> TestResponse {
            try app.request(
                "POST", "/api/client/init", json: json, adminKey: nil, headers: headers.merging(["X-Forwarded-For": "198.51.100.81"]) { $1 })
        }
        let now = String(Int64(Date().timeIntervalSince1970 * 1000))
        let good = try opensslSignature(body: json, timestamp: now, secret: secret)
        let signed = ["Authorization": "HMAC", "x-Key-Id": keyID, "x-Timestamp": now, "x-Signature": good]
        #expect(try send(signed).status == 200)
        #expect(try send([:]).status == 401)  // required: unsigned is refused
        #expect(
            try send(signed.merging(["x-Signature": try opensslSignature(body: json + " ", timestamp: now, secret: secret)]) { $1 }).status == 401)
        let stale = String(Int64(Date().timeIntervalSince1970 * 1000) - 6 * 60 * 1000)
        #expect(
            try send(
                signed.merging(["x-Timestamp": stale, "x-Signature": try opensslSignature(body: json, timestamp: stale, secret: secret)]) { $1 }
            ).status == 401)
        #expect(try send(signed.merging(["x-Key-Id": "sk_unknown"]) { $1 }).status == 401)
        // Timestamps at the ends of Int64 once overflowed the skew check, which traps.
        for extreme in ["-9223372036854775808", "9223372036854775807"] {
            #expect(try send(signed.merging(["x-Timestamp": extreme]) { $1 }).status == 401, "\(extreme)")
        }
        let refused = try send([:])
        #expect(refused.json?["status"] as? Int == 401 && (refused.json?["msg"] as? String)?.contains("signed") == true)

        // optional: unsigned passes, a bad signature still does not.
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"signing":"optional"}"#).status == 200)
        #expect(try send([:]).status == 200)
        #expect(try send(signed.merging(["x-Signature": "AAAA"]) { $1 }).status == 401)
        // A revoked key no longer signs.
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/signing-keys/\(keyID)").status == 204)
        #expect(try send(signed).status == 401)
    }
}

/// Money in stats: per currency, never summed across currencies, and payments apart from the
/// amounts events declare (one purchase reported both ways must not count twice in one figure).
@Suite struct RevenueStatsTests {
    @Test func currenciesAreNeverAddedAndPaymentsAreKeptApartFromEventValues() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        #expect(try app.client("init", body("init", token: token)).status == 200)
        #expect(try app.client("trigger", body("trigger", token: token)).status == 200)
        // One purchase of 29.99 USD, reported as an event with its amount and captured as a payment.
        let event = #"{"token":"\#(token)","platform":"IOS","install_instance_id":"IID-1","event_name":"purchase","event_data":{"amount":29.99}}"#
        #expect(try app.client("capture-event", event).status == 200)
        let payment = #"{"token":"\#(token)","platform":"IOS","install_instance_id":"IID-1","user_id":"user_123","amount":29.99,"payment_id":"p-1"}"#
        #expect(try app.client("capture-payment", payment).status == 200)
        // And an event in another currency.
        let euros =
            #"{"token":"\#(token)","platform":"IOS","install_instance_id":"IID-1","event_name":"tip","event_data":{"amount":4.5,"currency":"eur"}}"#
        #expect(try app.client("capture-event", euros).status == 200)

        let body = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json)
        let totals = try #require(body["totals"] as? [String: Any])
        #expect(totals["payment_revenue"] as? [String: Double] == ["USD": 29.99])
        #expect(totals["event_revenue"] as? [String: Double] == ["USD": 29.99, "EUR": 4.5])
        #expect(totals["revenue"] == nil, "no figure sums currencies or payments with event values")
    }
}
