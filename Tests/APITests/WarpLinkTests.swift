import Attribution
import Cryptography
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@_spi(StoreInternals) @testable import Store

/// The bodies WarpLink's SDKs send, copied from their sources (docs/sdk-apis.md, "WarpLink").
enum WarpLinkBodies {
    /// iOS 0.1.0: `preferredLanguages` joined, points, JavaScript-signed offset, the SDK's own UA, IDFV.
    static func iOS(deviceID: String = "6D92078A-8246-4BA4-AE5B-76104861E7DC", language: String = "fr-FR,en-US", offset: Int = -60) -> String {
        #"{"accept_language":"\#(language)","screen_width":390,"screen_height":844,"timezone_offset":\#(offset),"user_agent":"WarpLink-iOS/0.1.0","platform":"ios","fingerprint_version":"enriched","sdk_version":"0.1.0","device_id":"\#(deviceID)"}"#
    }

    /// Android 0.1.x with the Play Install Referrer's link id: no signals, `basic`.
    static func androidReferrer(linkID: String) -> String {
        #"{"platform":"android","sdk_version":"0.1.2","referrer":"\#(linkID)","fingerprint_version":"basic"}"#
    }

    /// Android 1.x without a referrer: one BCP-47 tag, IANA zone, no screen, reinstall flag, package.
    static let android1 =
        #"{"platform":"android","sdk_version":"1.2.0","accept_language":"fr-FR","timezone_offset":-60,"timezone":"Europe/Paris","fingerprint_version":"enriched_tz","is_reinstall":false,"app_package_name":"com.shop"}"#
}

private let chromeAndroid = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"

extension TestApp {
    /// A WarpLink-shaped key for the project, issued through the admin API.
    func warpLinkKey(_ projectID: String, mode: String = "live") throws -> String {
        let issued = try request("POST", "/admin/v1/projects/\(projectID)/api-keys", json: #"{"format":"warplink","mode":"\#(mode)"}"#)
        guard issued.status == 201, let key = issued.json?["key"] as? String else { throw ConnectError(code: Int32(issued.status)) }
        return key
    }

    func warpLink(
        _ method: String, _ path: String, key: String?, json: String? = nil, ip: String = "198.51.100.23",
        agent: String = "WarpLink-iOS/0.1.0", headers: [String: String] = [:]
    ) throws -> TestResponse {
        try request(
            method, "/v1\(path)", json: json, adminKey: key,
            headers: ["User-Agent": agent, "X-Forwarded-For": ip].merging(headers) { $1 })
    }
}

/// Every value in a decoded body, nested ones included, is something other than JSON null.
private func hasNoNull(_ value: Any) -> Bool {
    switch value {
    case is NSNull: return false
    case let object as [String: Any]: return object.values.allSatisfy(hasNoNull)
    case let array as [Any]: return array.allSatisfy(hasNoNull)
    default: return true
    }
}

/// WarpLink's error body with this code.
private func isWarpLinkError(_ response: TestResponse, status: Int, code: String) -> Bool {
    guard response.status == status, let error = response.json?["error"] as? [String: Any] else { return false }
    return error["code"] as? String == code && (error["message"] as? String)?.isEmpty == false && response.json?.count == 1
}

@Suite struct WarpLinkTests {
    @Test func projectsIssueKeysInWarpLinksShapeThatValidateAndWorkOnOtherRoutes() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, standardKey, _) = try app.projectWithLink()
        let live = try app.warpLinkKey(projectID)
        let test = try app.warpLinkKey(projectID, mode: "test")
        let shape = try Regex("^wl_(live|test)_[a-zA-Z0-9]{32}$")
        #expect(live.wholeMatch(of: shape) != nil && live.hasPrefix("wl_live_"))
        #expect(test.wholeMatch(of: shape) != nil && test.hasPrefix("wl_test_"))
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/api-keys", json: #"{"format":"warp"}"#).status == 422)
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/api-keys", json: #"{"format":"warplink","mode":"prod"}"#).status == 422)
        // Stored hashed like every key: the list shows prefixes only.
        let listed = try app.request("GET", "/admin/v1/projects/\(projectID)/api-keys")
        #expect(!String(decoding: listed.body, as: UTF8.self).contains(live))

        let valid = try app.warpLink("GET", "/sdk/validate", key: live)
        #expect(valid.status == 200)
        #expect(valid.json?["valid"] as? Bool == true && valid.json?["domains"] as? [String] == ["test"])
        #expect(try app.warpLink("GET", "/sdk/validate", key: test).status == 200)
        // Wrong shape (a standard key), unknown, missing: 401 in WarpLink's shape.
        #expect(isWarpLinkError(try app.warpLink("GET", "/sdk/validate", key: standardKey), status: 401, code: "UNAUTHORIZED"))
        #expect(
            isWarpLinkError(
                try app.warpLink("GET", "/sdk/validate", key: "wl_live_" + String(repeating: "a", count: 32)),
                status: 401, code: "UNAUTHORIZED"))
        #expect(isWarpLinkError(try app.warpLink("GET", "/sdk/validate", key: nil), status: 401, code: "UNAUTHORIZED"))
        // A WarpLink key is an API key like any other.
        #expect(try app.request("GET", "/api/links", adminKey: live).status == 200)
        // Revoked: refused at once.
        let keys = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/api-keys").jsonArray)
        let liveID = try #require(keys.first { ($0["prefix"] as? String).map { live.hasPrefix($0) } == true }?["id"] as? String)
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/api-keys/\(liveID)").status == 204)
        #expect(try app.warpLink("GET", "/sdk/validate", key: live).status == 401)
    }

    @Test func aBrowserClickOnAnIPhoneThenAWarpLinkMatchFromTheSameNetworkIsProbabilistic() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, link) = try app.projectWithLink()
        let key = try app.warpLinkKey(projectID)
        let clickID = try app.clickWithBeacon(ip: "198.51.100.23")
        try app.settle()

        // Another phone on the same network (its screen's points disagree): not this click's.
        let other = try app.warpLink(
            "POST", "/attribution/match", key: key,
            json: WarpLinkBodies.iOS(deviceID: "11111111-2222-4333-8444-555555555555")
                .replacingOccurrences(of: "\"screen_width\":390", with: "\"screen_width\":430"))
        #expect(other.json?["matched"] as? Bool == false)

        let matched = try app.warpLink("POST", "/attribution/match", key: key, json: WarpLinkBodies.iOS())
        #expect(matched.status == 200, "\(String(decoding: matched.body, as: UTF8.self))")
        let body = try #require(matched.json)
        #expect(hasNoNull(body))
        #expect(body["matched"] as? Bool == true)
        #expect(body["match_type"] as? String == "probabilistic")
        #expect(body["match_confidence"] as? Double == 0.85)  // one candidate, under an hour old
        #expect(body["match_guaranteed"] as? Bool == false)
        #expect(body["link_id"] as? String == link["id"] as? String)
        #expect(body["deep_link_url"] as? String == "shop://product/42")
        #expect(body["destination_url"] as? String == "https://shop.example.com/")
        #expect(body["custom_params"] as? [String: String] == [:])
        let installID = try #require(body["install_id"] as? String)
        // Screen in points, offset with JavaScript's sign, languages: all compared, none refused.
        let factors = try app.queryOne("SELECT matched_factors, click_id, api FROM installs WHERE id = ?", installID) {
            ($0.string(0), $0.optionalString(1), $0.string(2))
        }
        #expect(factors?.1 == clickID && factors?.2 == "warplink")
        for factor in ["ip", "platform", "screen", "timezone", "language"] { #expect(factors?.0.contains(factor) == true, "\(factors?.0 ?? "")") }

        // iOS 0.1.0 asks again on a later launch: the same install, not a second one.
        let again = try app.warpLink("POST", "/attribution/match", key: key, json: WarpLinkBodies.iOS())
        #expect(again.json?["install_id"] as? String == installID)
        #expect(try app.count("SELECT count(*) FROM installs") == 2)
    }

    @Test func anIDFVMatchAfterALinkrunnerAppOpenIsDeterministicAndOneInstallAcrossFamilies() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        let key = try app.warpLinkKey(projectID)
        let opened = try app.client("handle-deeplink", body("handle-deeplink", token: token, extra: #","deeplink_url":"http://test/summer""#))
        #expect(opened.status == 200)
        try app.settle()

        // Another network: only the IDFV can tell.
        let matched = try app.warpLink("POST", "/attribution/match", key: key, json: WarpLinkBodies.iOS(), ip: "203.0.113.9")
        let answer = try #require(matched.json)
        #expect(hasNoNull(answer))
        #expect(answer["matched"] as? Bool == true && answer["match_type"] as? String == "deterministic")
        #expect(answer["match_confidence"] as? Double == 1 && answer["match_guaranteed"] as? Bool == true)
        let installID = try #require(answer["install_id"] as? String)

        // The same device's Linkrunner SDK reports the same install: one attribution in stats.
        let initialized = try app.client("init", body("init", token: token))
        #expect(initialized.status == 200)
        let data = try app.client("attribution-data", body("attribution-data", token: token))
        #expect(((data.json?["data"] as? [String: Any])?["attribution_source"] as? String) == "INORGANIC")
        #expect(try app.count("SELECT count(*) FROM installs") == 1)
        #expect(try app.queryOne("SELECT install_instance_id FROM installs WHERE id = ?", installID) { $0.optionalString(0) } == "IID-1")
        let stats = try app.request("GET", "/admin/v1/projects/\(projectID)/stats")
        let totals = try #require(stats.json?["totals"] as? [String: Any])
        #expect(totals["installs"] as? Int == 1 && totals["attributed_installs"] as? Int == 1)
        #expect((totals["installs_by_match_type"] as? [String: Int])?["deterministic"] == 1)
    }

    @Test func aLinkrunnerInstallThenAWarpLinkMatchFromTheSameDeviceIsTheSameInstall() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        let key = try app.warpLinkKey(projectID)
        #expect(try app.client("init", body("init", token: token)).status == 200)
        let matched = try app.warpLink("POST", "/attribution/match", key: key, json: WarpLinkBodies.iOS(), ip: "203.0.113.9")
        #expect(try app.count("SELECT count(*) FROM installs") == 1)
        #expect(try app.queryOne("SELECT id FROM installs") { $0.string(0) } == matched.json?["install_id"] as? String)
        // A reinstall through Linkrunner (a new instance id) stays a new install, as before.
        #expect(try app.client("init", body("init", token: token, instance: "IID-2")).status == 200)
        #expect(try app.count("SELECT count(*) FROM installs") == 2)
    }

    @Test func thePlayStoreRedirectCarriesTheLinkIDAndAnAndroidReferrerMatchesIt() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, link) = try app.projectWithLink()
        let linkID = try #require(link["id"] as? String)
        #expect(Identifiers.isUUID(linkID))
        let key = try app.warpLinkKey(projectID)
        let click = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": chromeAndroid, "X-Forwarded-For": "198.51.100.50"])
        let clickID = try #require(click.header("X-Click-Id"))
        let page = String(decoding: click.body, as: UTF8.self)
        // What WarpLink's Android SDK reads (utm_source=warplink, utm_content=<link uuid>) and what Linkrunner's server side reads (click_id).
        #expect(page.contains("referrer=utm_source%3Dwarplink%26utm_content%3D\(linkID)%26click_id%3D\(clickID)"), "\(page)")
        try app.settle()

        let matched = try app.warpLink(
            "POST", "/attribution/match", key: key, json: WarpLinkBodies.androidReferrer(linkID: linkID),
            ip: "203.0.113.77", agent: "WarpLink-Android/0.1.2")
        let body = try #require(matched.json)
        #expect(hasNoNull(body))
        #expect(body["matched"] as? Bool == true && body["match_type"] as? String == "deterministic")
        #expect(body["match_guaranteed"] as? Bool == true && body["link_id"] as? String == linkID)
        // Android's destination is the web URL; the deep link is the app's.
        #expect(body["destination_url"] as? String == "https://shop.example.com/" && body["deep_link_url"] as? String == "shop://product/42")
        let claimed = try app.queryOne("SELECT click_id, matched_factors FROM installs") { ($0.optionalString(0), $0.string(1)) }
        #expect(claimed?.0 == clickID && claimed?.1 == #"["install_referrer"]"#)

        // A referrer that is not a link id is refused, naming the field.
        let bad = try app.warpLink(
            "POST", "/attribution/match", key: key, json: WarpLinkBodies.androidReferrer(linkID: "abc"),
            agent: "WarpLink-Android/0.1.2")
        #expect(isWarpLinkError(bad, status: 422, code: "VALIDATION_ERROR"))
        #expect(bad.json.map { "\($0)".contains("referrer") } == true)
    }

    @Test func anOrganicInstallAnswersOnlyMatchedAndItsInstallID() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        let key = try app.warpLinkKey(projectID)
        let organic = try app.warpLink("POST", "/attribution/match", key: key, json: WarpLinkBodies.android1, agent: "WarpLink-Android/1.2.0")
        #expect(organic.status == 200)
        let body = try #require(organic.json)
        #expect(Set(body.keys) == ["matched", "install_id"] && body["matched"] as? Bool == false)
        #expect(!String(decoding: organic.body, as: UTF8.self).contains("null"))
        // Same signals, same network, minutes later: the same install.
        let again = try app.warpLink("POST", "/attribution/match", key: key, json: WarpLinkBodies.android1, agent: "WarpLink-Android/1.2.0")
        #expect(again.json?["install_id"] as? String == body["install_id"] as? String)
    }

    @Test func resolveRecordsOneAppOpenPerTapAndMergesTheOpenedURLsParameters() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, link) = try app.projectWithLink()
        let key = try app.warpLinkKey(projectID)

        let plain = try app.warpLink("GET", "/links/resolve/summer?domain=test", key: key)
        #expect(plain.status == 200)
        let body = try #require(plain.json)
        #expect(hasNoNull(body))
        #expect(body["id"] as? String == link["id"] as? String && body["slug"] as? String == "summer" && body["domain"] as? String == "test")
        #expect(body["destination_url"] as? String == "https://shop.example.com/")
        #expect(body["ios_url"] as? String == "shop://product/42" && body["android_url"] as? String == "shop://product/42")
        #expect(body["ios_fallback_url"] as? String == "https://apps.apple.com/app/id123")
        #expect(body["custom_params"] as? [String: String] == [:])
        let createdAt = try #require(body["created_at"] as? String)
        #expect(createdAt.wholeMatch(of: try Regex(#"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#)) != nil, "\(createdAt)")

        // Android 1.x: the tapped URL's query once encoded in `params`, and a tap id that every retry repeats.
        let tap = "0b7c2f4e-5d6a-4e8b-9c1d-2e3f4a5b6c7d"
        let params = "utm_campaign%3Dspring%26ref%3Dfriend%26gclid%3DG-1"
        var clickIDs: Set<String> = []
        for _ in 0..<3 {
            let opened = try app.warpLink(
                "GET", "/links/resolve/summer?domain=test&params=\(params)", key: key,
                agent: "WarpLink-Android/1.2.0", headers: ["X-WarpLink-Tap-Id": tap])
            #expect(opened.status == 200)
            #expect(opened.json?["custom_params"] as? [String: String] == ["ref": "friend", "gclid": "G-1"])
            #expect(opened.json?["android_url"] as? String == "shop://product/42?gclid=G-1&ref=friend")
            clickIDs.insert(try #require(opened.header("X-Click-Id")))
        }
        try app.settle()
        #expect(clickIDs.count == 1)
        let recorded = try app.queryOne(
            "SELECT utm_campaign, platform, network_click_id, source FROM clicks WHERE click_id = ?", clickIDs.first!
        ) {
            ($0.optionalString(0), $0.optionalString(1), $0.optionalString(2), $0.string(3))
        }
        #expect(recorded?.0 == "spring" && recorded?.1 == "android" && recorded?.2 == "G-1" && recorded?.3 == "app")
        #expect(try app.count("SELECT count(*) FROM clicks") == 2)  // the plain resolve and the one tap

        #expect(isWarpLinkError(try app.warpLink("GET", "/links/resolve/nosuchlink?domain=test", key: key), status: 404, code: "NOT_FOUND"))
        // Another project's key: 401, not its link.
        let otherProject = try #require(try app.createProject("Other")["id"] as? String)
        let otherKey = try app.warpLinkKey(otherProject)
        #expect(isWarpLinkError(try app.warpLink("GET", "/links/resolve/summer?domain=test", key: otherKey), status: 401, code: "UNAUTHORIZED"))
    }

    @Test func linksCreatedThroughV1ResolveWithTheirDeepLinkAndParameters() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        let key = try app.warpLinkKey(projectID)
        let created = try app.warpLink(
            "POST", "/links", key: key,
            json:
                #"{"destination_url":"https://shop.example.com/p/1","ios_url":"shop://p/1?x=1","android_url":"shop://p/1?x=1","custom_params":{"k":"v","n":3}}"#
        )
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let body = try #require(created.json)
        #expect(hasNoNull(body))
        let slug = try #require(body["slug"] as? String)
        #expect(Identifiers.isUUID(body["id"] as? String ?? ""))
        #expect(body["url"] as? String == "http://test/\(slug)")
        #expect(body["destination_url"] as? String == "https://shop.example.com/p/1")
        #expect(body["ios_url"] as? String == "shop://p/1?k=v&n=3&x=1")
        #expect(body["custom_params"] as? [String: String] == ["k": "v", "n": "3", "x": "1"])
        let resolved = try app.warpLink("GET", "/links/resolve/\(slug)?domain=test", key: key)
        #expect(resolved.json?["id"] as? String == body["id"] as? String && resolved.json?["ios_url"] as? String == "shop://p/1?k=v&n=3&x=1")

        let missing = try app.warpLink("POST", "/links", key: key, json: #"{"ios_url":"shop://p/1"}"#)
        #expect(isWarpLinkError(missing, status: 400, code: "INVALID_REQUEST"))
        let clash = try app.warpLink(
            "POST", "/links", key: key, json: #"{"destination_url":"https://a.example/","ios_url":"shop://a","android_url":"shop://b"}"#)
        #expect(isWarpLinkError(clash, status: 422, code: "VALIDATION_ERROR"))
        let badURL = try app.warpLink("POST", "/links", key: key, json: #"{"destination_url":"javascript:alert(1)"}"#)
        #expect(isWarpLinkError(badURL, status: 422, code: "VALIDATION_ERROR"))
        #expect(try app.count("SELECT count(*) FROM links") == 2)
    }

    /// The same outbox as the other families: a WarpLink install is an `install.created` webhook
    /// with its attribution.
    @Test func aWarpLinkInstallReachesWebhooks() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)
        let (projectID, _, link) = try app.projectWithLink()
        let key = try app.warpLinkKey(projectID)
        #expect(
            try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)","events":["install.created"]}"#)
                .status == 201)
        app.startOutbox()
        _ = try app.clickWithBeacon(ip: "198.51.100.23")
        try app.settle()
        let matched = try app.warpLink("POST", "/attribution/match", key: key, json: WarpLinkBodies.iOS())
        let delivered = receiver.wait(for: 1)
        let event = try #require(delivered.first?.json)
        #expect(event["type"] as? String == "install.created")
        let data = try #require(event["data"] as? [String: Any])
        #expect(data["install_id"] as? String == matched.json?["install_id"] as? String)
        #expect("\(data)".contains(link["id"] as? String ?? "missing"), "\(data)")
    }

    @Test func theCommandLineIssuesWarpLinkKeys() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-wl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("db.sqlite").path
        #expect(try run(["migrate", "--db", db]).status == 0)
        let created = try run(["project", "create", "--name", "Shop", "--json", "--db", db])
        let id = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: String])?["id"])
        let shape = try Regex("^wl_(live|test)_[a-zA-Z0-9]{32}$")
        for (mode, prefix) in [([String](), "wl_live_"), (["--mode", "test"], "wl_test_")] {
            let issued = try run(["project", "key", id, "--format", "warplink", "--json", "--db", db] + mode)
            #expect(issued.status == 0, "\(issued.stderr)")
            let key = try #require((try JSONSerialization.jsonObject(with: Data(issued.stdout.utf8)) as? [String: String])?["key"])
            #expect(key.wholeMatch(of: shape) != nil && key.hasPrefix(prefix))
            #expect(
                try Database(path: db).read { try $0.queryOne("SELECT count(*) FROM api_keys WHERE key_hash = ?", Secrets.sha256(key)) { $0.int(0) } }
                    == 1)
        }
        #expect(try run(["project", "key", id, "--mode", "test", "--db", db]).status == 2)  // --mode needs --format warplink
        #expect(try run(["project", "key", id, "--format", "wl", "--db", db]).status == 2)
        #expect(try run(["project", "key", "no-such-project", "--format", "warplink", "--db", db]).status == 1)
    }

    @Test func aTapIDGivesOneClickIDPerProject() {
        let tap = "0b7c2f4e-5d6a-4e8b-9c1d-2e3f4a5b6c7d"
        let first = Identifiers.clickID(forTap: tap, projectID: "p1")
        #expect(Identifiers.isUUID(first) && first == Identifiers.clickID(forTap: tap, projectID: "p1"))
        #expect(Array(first)[14] == "8" && "89ab".contains(Array(first)[19]))
        #expect(first != Identifiers.clickID(forTap: tap, projectID: "p2"))
    }

    @Test func badMatchBodiesAreRefusedInWarpLinksShapeAndNeverA5xx() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        let key = try app.warpLinkKey(projectID)
        let cases: [(String, Int, String, String)] = [
            (#"{"platform":"ios","sdk_version":"0.1.0"}"#, 400, "INVALID_REQUEST", "fingerprint_version"),
            (#"{"platform":"windows","fingerprint_version":"basic"}"#, 422, "VALIDATION_ERROR", "platform"),
            (#"{"fingerprint_version":"basic"}"#, 400, "INVALID_REQUEST", "platform"),
            (#"{"platform":"ios","fingerprint_version":"v9"}"#, 422, "VALIDATION_ERROR", "fingerprint_version"),
            (#"{"platform":"ios","fingerprint_version":"enriched","screen_width":"wide"}"#, 400, "INVALID_REQUEST", "screen_width"),
            (
                #"{"platform":"ios","fingerprint_version":"enriched","screen_width":1e300,"screen_height":844}"#, 422, "VALIDATION_ERROR",
                "screen_width"
            ),
            (#"{"platform":"ios","fingerprint_version":"enriched","timezone_offset":99999}"#, 422, "VALIDATION_ERROR", "timezone_offset"),
            (
                #"{"platform":"ios","fingerprint_version":"enriched","accept_language":"\#(String(repeating: "x", count: 300))"}"#, 422,
                "VALIDATION_ERROR", "accept_language"
            ),
            (#"{"platform":"ios","fingerprint_version":"enriched","device_id":7}"#, 400, "INVALID_REQUEST", "device_id"),
            (#"{"platform":"android","fingerprint_version":"enriched_tz","is_reinstall":"no"}"#, 400, "INVALID_REQUEST", "is_reinstall"),
            (#"{"platform":"ios","#, 400, "INVALID_REQUEST", "JSON"),
            (#"[1,2]"#, 400, "INVALID_REQUEST", "JSON object"),
        ]
        for (json, status, code, field) in cases {
            let response = try app.warpLink("POST", "/attribution/match", key: key, json: json)
            #expect(
                isWarpLinkError(response, status: status, code: code),
                "\(json) → \(response.status) \(String(decoding: response.body, as: UTF8.self))")
            let message = (response.json?["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(message.contains(field), "\(json) → \(message)")
        }
        #expect(try app.count("SELECT count(*) FROM installs") == 0)
        // Nothing was harmed: a good body still matches.
        #expect(try app.warpLink("POST", "/attribution/match", key: key, json: WarpLinkBodies.iOS()).status == 200)
    }
}
