import Attribution
import Dispatch
import Foundation
import HTTP
import StoreContracts
import Synchronization
import TestSupport
import Testing

@testable import API
@_spi(StoreInternals) @testable import Store

/// InstallResponse and DeepLinkData as the LinkForty iOS SDK decodes them (required keys and types).
private struct SDKInstallResponse: Decodable {
    struct DeepLinkData: Decodable {
        let shortCode: String
        let iosUrl: String?
        let deepLinkPath: String?
        let appScheme: String?
        let linkId: String?
        let clickedAt: String?
        let customParameters: [String: String]?
    }
    let installId: String
    let attributed: Bool
    let confidenceScore: Double
    let matchedFactors: [String]
    let deepLinkData: DeepLinkData?
}

private struct SDKEventResponse: Decodable { let success: Bool }

/// The LinkForty iOS install body: app User-Agent, native pixels, Locale identifier.
private func installBody(
    deviceID: String? = nil, timezone: String = "Europe/Paris", language: String = "fr_FR",
    width: Int = 1170, height: Int = 2532, userAgent: String = "Shop/2.1 iOS/17.4.1"
) -> String {
    var body =
        #"{"userAgent":"\#(userAgent)","timezone":"\#(timezone)","language":"\#(language)","screenWidth":\#(width),"screenHeight":\#(height),"platform":"iOS","platformVersion":"17.4.1","appVersion":"2.1","sdkName":"ios","sdkVersion":"1.2.0""#
    if let deviceID { body += #","deviceId":"\#(deviceID)""# }
    return body + "}"
}

extension TestApp {
    /// A click on `/summer` from `ip` (through the trusted proxy), with the page's beacon.
    func clickWithBeacon(ip: String) throws -> String {
        let click = try request(
            "GET", "/summer", adminKey: nil,
            headers: [
                "User-Agent": safariIPhone, "X-Forwarded-For": ip,
                "Accept-Language": "fr-FR,fr;q=0.9",
            ])
        let clickID = try #require(click.header("X-Click-Id"))
        let beacon = try request(
            "POST", "/c/\(clickID)", json: #"{"sw":390,"sh":844,"dpr":3,"tz":"Europe/Paris","tzo":-60,"langs":["fr-FR","fr"]}"#, adminKey: nil)
        #expect(beacon.status == 204)
        return clickID
    }

    func install(ip: String, key: String, body: String = installBody()) throws -> TestResponse {
        try request("POST", "/api/sdk/v1/install", json: body, adminKey: key, headers: ["X-Forwarded-For": ip])
    }
}

@Suite struct InstallTests {
    @Test func clickThenInstallIsAttributedThenEventsAreTrackedAndCounted() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, link) = try app.projectWithLink()
        let clickID = try app.clickWithBeacon(ip: "198.51.100.23")

        let response = try app.install(ip: "198.51.100.23", key: key)
        #expect(response.status == 200)
        let install = try JSONDecoder().decode(SDKInstallResponse.self, from: Data(response.body))
        #expect(install.attributed)
        #expect(install.confidenceScore == 85)
        #expect(install.matchedFactors == ["ip", "platform", "os_version", "screen", "timezone", "language"])
        let deepLink = try #require(install.deepLinkData)
        #expect(deepLink.shortCode == "summer" && deepLink.linkId == link["id"] as? String)
        #expect(deepLink.appScheme == "shop" && deepLink.deepLinkPath == "/product/42")
        #expect(deepLink.clickedAt.flatMap { ISO8601DateFormatter().date(from: $0) } != nil)
        #expect(response.json?["deepLinkData"].flatMap { ($0 as? [String: Any])?["clickId"] as? String } == clickID)
        #expect(try app.count("SELECT count(*) FROM clicks WHERE claimed_at IS NOT NULL AND install_id = '\(install.installId)'") == 1)

        let event = try app.request(
            "POST", "/api/sdk/v1/event",
            json: #"{"installId":"\#(install.installId)","eventName":"purchase","eventData":{"revenue":9.99,"currency":"eur","sku":"a1"}}"#,
            adminKey: key)
        #expect(event.status == 200)
        #expect(try JSONDecoder().decode(SDKEventResponse.self, from: Data(event.body)).success)
        #expect(event.json?["acknowledged"] as? Bool == true)
        #expect(try app.count("SELECT count(*) FROM events WHERE revenue = 9.99 AND currency = 'EUR'") == 1)

        let stats = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json)
        let totals = try #require(stats["totals"] as? [String: Any])
        #expect(totals["attributed_installs"] as? Int == 1)
        #expect((totals["installs_by_match_type"] as? [String: Int])?["probabilistic"] == 1)
        #expect(totals["events"] as? Int == 1 && totals["event_revenue"] as? [String: Double] == ["EUR": 9.99])
        #expect(totals["clicks"] as? Int == 1)
    }

    /// The answer is written by hand: its bytes must be those of the sorted serializer, every
    /// field present, with parameters, UTM values and text that needs escapes.
    @Test func theHandWrittenAnswerIsSortedCompactJSON() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, key, _) = try app.projectWithLink(
            #"{"short_code":"summer","app_scheme":"shop","deep_link_path":"/product/42","ios_url":"https://shop.example.com/p?a=1&b=2","deep_link_parameters":{"sku":"a\"1","Name":"caf\u00e9 \\ 10%","b10":"x","b9":"y"},"utm":{"source":"mail","medium":"e/mail","campaign":"summer","term":"t","content":"c"}}"#
        )
        _ = try app.clickWithBeacon(ip: "198.51.100.41")
        let response = try app.install(ip: "198.51.100.41", key: key)
        #expect(response.status == 200)
        let parsed = try JSONValueParser.parse(response.body)
        #expect(response.body == parsed.serialized())
        let deepLink = try #require(response.json?["deepLinkData"] as? [String: Any])
        #expect(deepLink["iosUrl"] as? String == "https://shop.example.com/p?a=1&b=2")
        #expect(deepLink["deepLinkParameters"] as? [String: String] == ["sku": "a\"1", "Name": "café \\ 10%", "b10": "x", "b9": "y"])
        #expect(deepLink["customParameters"] as? [String: String] == deepLink["deepLinkParameters"] as? [String: String])
        #expect(
            deepLink["utmParameters"] as? [String: String]
                == ["source": "mail", "medium": "e/mail", "campaign": "summer", "term": "t", "content": "c"])
        #expect(
            response.bodyText.hasPrefix(
                #"{"attributed":true,"confidenceScore":85,"deepLinkData":{"androidUrl":"https://play.google.com/store/apps/details?id=com.shop","appScheme":"shop","clickId":"#
            ))
        #expect(
            response.bodyText.contains(#""deepLinkParameters":{"Name":"café \\ 10%","b10":"x","b9":"y","sku":"a\"1"},"deepLinkPath":"/product/42""#))
    }

    @Test func installReportFieldsAreCheckedByName() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, key, _) = try app.projectWithLink()
        let fraction = try app.install(ip: "1.2.3.4", key: key, body: #"{"userAgent":"x","attributionWindowHours":1.5}"#)
        #expect(fraction.status == 400 && (fraction.json?["message"] as? String)?.contains("attributionWindowHours") == true)
        let number = try app.install(ip: "1.2.3.4", key: key, body: #"{"userAgent":7}"#)
        #expect(number.status == 400 && (number.json?["message"] as? String)?.contains("userAgent") == true)
        let long = try app.install(ip: "1.2.3.4", key: key, body: #"{"userAgent":"\#(String(repeating: "a", count: 3000))"}"#)
        #expect(long.status == 200)
        // The scheme is case-insensitive and the token trimmed; any other scheme is no key.
        for header in ["bearer \(key)", "BEARER   \(key)\t ", "  Bearer \(key)"] {
            let response = try app.request(
                "POST", "/api/sdk/v1/install", json: #"{"userAgent":"x"}"#, adminKey: nil,
                headers: ["Authorization": header, "X-Forwarded-For": "1.2.3.4"])
            #expect(response.status == 200, "\(header)")
        }
        for header in ["Basic \(key)", "Bearer", "Bearer    ", "Bearer\t\(key)", "Bearerx \(key)"] {
            let response = try app.request(
                "POST", "/api/sdk/v1/install", json: #"{"userAgent":"x"}"#, adminKey: nil,
                headers: ["Authorization": header, "X-Forwarded-For": "1.2.3.4"])
            #expect(response.status == 401, "\(header)")
        }
    }

    @Test func organicInstallsSendNullDeepLinkDataAndAnEmptyFactorList() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, key, _) = try app.projectWithLink()
        let response = try app.install(ip: "203.0.113.50", key: key)
        #expect(response.status == 200)
        #expect(response.bodyText.contains(#""deepLinkData":null"#))
        let install = try JSONDecoder().decode(SDKInstallResponse.self, from: Data(response.body))
        #expect(!install.attributed && install.confidenceScore == 0 && install.matchedFactors == [] && install.deepLinkData == nil)
    }

    @Test func theSameDeviceReportingAgainGetsTheSameInstall() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, key, _) = try app.projectWithLink()
        _ = try app.clickWithBeacon(ip: "198.51.100.24")
        let first = try #require(try app.install(ip: "198.51.100.24", key: key).json)
        // The iOS SDK reports on every start: same fingerprint, then same deviceId even from another network.
        let again = try #require(try app.install(ip: "198.51.100.24", key: key).json)
        #expect(again["installId"] as? String == first["installId"] as? String)
        #expect(again["attributed"] as? Bool == true && again["confidenceScore"] as? Int == 85)
        let withDevice = try #require(try app.install(ip: "198.51.100.30", key: key, body: installBody(deviceID: "IDFA-1")).json)
        let moved = try #require(try app.install(ip: "192.0.2.99", key: key, body: installBody(deviceID: "IDFA-1", timezone: "Asia/Tokyo")).json)
        #expect(moved["installId"] as? String == withDevice["installId"] as? String)
        #expect(try app.count("SELECT count(*) FROM installs") == 2)
    }

    @Test func twoInstallsRacingForOneClickNeverBothGetIt() throws {
        for _ in 0..<5 {
            let app = try TestApp(trustedProxies: ["127.0.0.1"])
            let (_, key, _) = try app.projectWithLink()
            _ = try app.clickWithBeacon(ip: "198.51.100.25")
            let attributed = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                // Two devices with identical signals but different device ids: both want the click.
                if let json = try? app.install(ip: "198.51.100.25", key: key, body: installBody(deviceID: "DEVICE-\(index)")).json,
                    json["attributed"] as? Bool == true
                {
                    attributed.add(1, ordering: .relaxed)
                }
            }
            #expect(attributed.load(ordering: .relaxed) == 1)
            #expect(try app.count("SELECT count(*) FROM installs") == 2)
            #expect(try app.count("SELECT count(*) FROM installs WHERE attributed = TRUE") == 1)
        }
    }

    @Test func botsOtherNetworksAndIPv6PrefixesFollowTheRules() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, key, _) = try app.projectWithLink()
        // A preview fetcher's click is never attributed (#15).
        _ = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": "facebookexternalhit/1.1", "X-Forwarded-For": "198.51.100.40"])
        #expect(try app.install(ip: "198.51.100.40", key: key).json?["attributed"] as? Bool == false)
        // Same /64, different interface id (#16).
        _ = try app.clickWithBeacon(ip: "2001:db8:1:2::5")
        let v6 = try #require(try app.install(ip: "2001:db8:1:2::9", key: key, body: installBody(deviceID: "FIRST")).json)
        #expect(v6["attributed"] as? Bool == true)
        // Another network altogether: organic.
        _ = try app.clickWithBeacon(ip: "198.51.100.41")
        #expect(try app.install(ip: "198.51.100.42", key: key, body: installBody(deviceID: "OTHER")).json?["attributed"] as? Bool == false)
        // The click of #16 is used: a second device with the same signals on that /64 is organic (#14).
        #expect(try app.install(ip: "2001:db8:1:2::77", key: key, body: installBody(deviceID: "SECOND")).json?["attributed"] as? Bool == false)
    }

    @Test func badInstallReportsAre4xx() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, key, _) = try app.projectWithLink()
        #expect(try app.install(ip: "1.2.3.4", key: key, body: #"{"timezone":"UTC"}"#).status == 400)  // userAgent missing
        #expect(try app.install(ip: "1.2.3.4", key: key, body: #"{"userAgent":"x","screenWidth":"wide"}"#).status == 400)
        #expect(try app.install(ip: "1.2.3.4", key: key, body: #"{"userAgent":"x","attributionWindowHours":0}"#).status == 422)
        #expect(try app.install(ip: "1.2.3.4", key: "ak_wrong").status == 401)
        #expect(try app.count("SELECT count(*) FROM installs") == 0)
        // Without a key, a project whose sdk_auth is `required` (the default) refuses the report...
        #expect(try app.request("POST", "/api/sdk/v1/install", json: installBody(), adminKey: nil).status == 401)
        #expect(try app.count("SELECT count(*) FROM installs") == 0)
        // ...and an `open` one, the only project, takes it.
        let projectID = try #require(try app.request("GET", "/admin/v1/projects").jsonArray?.first?["id"] as? String)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"sdk_auth":"open"}"#).json?["sdk_auth"] as? String == "open")
        #expect(try app.request("POST", "/api/sdk/v1/install", json: installBody(), adminKey: nil).status == 200)
        _ = try app.createProject("Second")
        #expect(try app.request("POST", "/api/sdk/v1/install", json: installBody(), adminKey: nil).status == 401)
    }

    @Test func eventsAreValidatedAndResentOnesStoredOnce() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, key, _) = try app.projectWithLink()
        let installID = try #require(try app.install(ip: "203.0.113.60", key: key).json?["installId"] as? String)
        let old = Timestamp(milliseconds: app.services.clock.now().milliseconds - 29 * 86_400_000).iso8601
        let body = #"{"installId":"\#(installID)","eventName":"level_complete","eventData":{"level":3},"timestamp":"\#(old)"}"#
        let first = try app.request("POST", "/api/sdk/v1/event", json: body, adminKey: key)
        let resent = try app.request("POST", "/api/sdk/v1/event", json: body, adminKey: key)
        #expect(first.status == 200 && resent.status == 200)
        #expect(first.json?["eventId"] as? String == resent.json?["eventId"] as? String)
        #expect(try app.count("SELECT count(*) FROM events") == 1)
        // The collapsed copy is counted (docs/sdk-apis.md: "Events sent twice").
        #expect(try app.request("GET", "/metrics").bodyText.contains("\nattributiond_events_collapsed_total 1\n"))
        let tooOld = Timestamp(milliseconds: app.services.clock.now().milliseconds - 31 * 86_400_000).iso8601
        let cases: [(String, Int)] = [
            (#"{"installId":"\#(installID)","eventName":"x","timestamp":"\#(tooOld)"}"#, 422),
            (#"{"installId":"\#(installID)","eventName":"x","timestamp":"yesterday"}"#, 422),
            (#"{"installId":"\#(installID)","eventName":"x","eventData":{"revenue":"9.99"}}"#, 422),
            (#"{"installId":"\#(installID)","eventName":"x","eventData":{"revenue":1e300}}"#, 422),
            (#"{"installId":"\#(installID)","eventName":""}"#, 422),
            (#"{"installId":"\#(installID)"}"#, 400),
            (#"{"installId":"\#(installID)","eventName":"x","eventData":[1]}"#, 400),
            (#"{"installId":42,"eventName":"x"}"#, 400),
            (#"{"installId":"\#(installID)","eventName":"x","timestamp":"2026-11-20T10:00:05"}"#, 422),  // no zone: no time
            (#"{"installId":"no-such-install","eventName":"x"}"#, 404),
        ]
        for (body, status) in cases {
            let response = try app.request("POST", "/api/sdk/v1/event", json: body, adminKey: key)
            #expect(response.status == status, "\(body): \(response.bodyText)")
            #expect(response.json?["error"] is String)
        }
        #expect(try app.count("SELECT count(*) FROM events") == 1)
        // The SDKs' extra fields are accepted and the data is stored as compact JSON with sorted keys.
        let extras =
            #"{"installId":"\#(installID)","eventName":"signup","eventData":{"plan":"pro","a/b":1},"sessionId":"s1","sdkName":"ios","sdkVersion":"1.2.0"}"#
        #expect(try app.request("POST", "/api/sdk/v1/event", json: extras, adminKey: key).status == 200)
        let stored = try app.queryOne("SELECT data FROM events WHERE name = 'signup'") { $0.string(0) }
        #expect(stored == #"{"a/b":1,"plan":"pro"}"#)
        try app.run("DELETE FROM events WHERE name = 'signup'")
        // The same install, name and time with other data is another event.
        let otherLevel = #"{"installId":"\#(installID)","eventName":"level_complete","eventData":{"level":4},"timestamp":"\#(old)"}"#
        #expect(try app.request("POST", "/api/sdk/v1/event", json: otherLevel, adminKey: key).status == 200)
        #expect(try app.count("SELECT count(*) FROM events WHERE name = 'level_complete'") == 2)
        #expect(try app.count("SELECT count(*) FROM events WHERE client_event_id IS NOT NULL") == 0, "no hash index entry")
        try app.run("DELETE FROM events WHERE data = '{\"level\":4}'")
        // Another project's key cannot write to this install.
        let other = try app.createProject("Other")["api_key"] as! String
        #expect(try app.request("POST", "/api/sdk/v1/event", json: #"{"installId":"\#(installID)","eventName":"x"}"#, adminKey: other).status == 401)
    }

    @Test func aProjectsOwnDecayStepsAndPenaltyAreUsed() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink()
        let patched = try app.request(
            "PATCH", "/admin/v1/projects/\(projectID)",
            json: #"{"matching":{"decay":[{"under_hours":2,"confidence":0.9},{"under_hours":48,"confidence":0.5}],"candidate_penalty":0.2}}"#)
        #expect(patched.status == 200, "\(patched.bodyText)")
        #expect(((patched.json?["matching"] as? [String: Any])?["decay"] as? [[String: Any]])?.count == 2)
        _ = try app.clickWithBeacon(ip: "198.51.100.70")
        #expect(try app.install(ip: "198.51.100.70", key: key).json?["confidenceScore"] as? Int == 90)
        let bad = try app.request(
            "PATCH", "/admin/v1/projects/\(projectID)",
            json: #"{"matching":{"decay":[{"under_hours":5,"confidence":0.5},{"under_hours":2,"confidence":0.9}]}}"#)
        #expect(bad.status == 422)
        #expect((bad.json?["message"] as? String)?.contains("matching.decay[1]") == true)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"matching":{"decai":[]}}"#).status == 422)
    }

    @Test func healthEndpoints() throws {
        let app = try TestApp()
        let health = try #require(try app.request("GET", "/api/sdk/v1/health", adminKey: nil).json)
        #expect(health["status"] as? String == "healthy" && health["version"] as? String == "v1")
        #expect((health["timestamp"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) } != nil)
        #expect(try app.request("GET", "/health/ready", adminKey: nil).status == 200)
    }
}

/// The LinkForty iOS SDK reports an install at every `initialize()` and stores whatever id comes
/// back, so tier 0 must give the same device the same id across launches.
@Suite struct LinkFortyInstallIdentityTests {
    @Test func relaunchesOnTheSameNetworkStayOneInstallForAsLongAsTheyKeepComing() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        _ = try app.clickWithBeacon(ip: "198.51.100.70")
        let first = try #require(try app.install(ip: "198.51.100.70", key: key).json)
        #expect(first["attributed"] as? Bool == true)
        // +20 h, +40 h, +60 h: each within 24 h of the previous report, so each is the same install
        // (it once became a new organic install at +40 h, 24 h after the first report).
        for _ in 0..<3 {
            try app.advanceClock(projectID, seconds: 20 * 3600)
            let again = try #require(try app.install(ip: "198.51.100.70", key: key).json)
            #expect(again["installId"] as? String == first["installId"] as? String)
            #expect(again["attributed"] as? Bool == true)
        }
        #expect(try app.count("SELECT count(*) FROM installs") == 1)
        // Silent for more than a day: nothing ties the next report to this install any more.
        try app.advanceClock(projectID, seconds: 26 * 3600)
        let later = try #require(try app.install(ip: "198.51.100.70", key: key).json)
        #expect(later["installId"] as? String != first["installId"] as? String)
    }

    @Test func aDeviceIDIsRecognisedOnAnyNetworkAtAnyTime() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        let idfv = "6D7C2B1E-0F4A-4B8E-9C3D-2A1B0C9D8E7F"
        let first = try #require(try app.install(ip: "198.51.100.71", key: key, body: installBody(deviceID: idfv)).json?["installId"] as? String)
        // Two seconds later on mobile data, then 100 days later elsewhere: the same install.
        try app.advanceClock(projectID, seconds: 2)
        #expect(try app.install(ip: "203.0.113.200", key: key, body: installBody(deviceID: idfv)).json?["installId"] as? String == first)
        try app.advanceClock(projectID, seconds: 100 * 86_400)
        #expect(try app.install(ip: "192.0.2.33", key: key, body: installBody(deviceID: idfv)).json?["installId"] as? String == first)
        #expect(try app.count("SELECT count(*) FROM installs") == 1)
    }

    @Test func withoutADeviceIDAnotherNetworkCannotBeToldFromAnIdenticalPhone() throws {
        // The documented limit (docs/sdk-setup.md): the same model, OS,
        // language and time zone on another network is, for all the server can see, another phone.
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, key, _) = try app.projectWithLink()
        let home = try #require(try app.install(ip: "198.51.100.72", key: key).json?["installId"] as? String)
        let away = try #require(try app.install(ip: "203.0.113.201", key: key).json?["installId"] as? String)
        #expect(home != away)
    }
}
