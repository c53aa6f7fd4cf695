import App
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

extension TestApp {
    /// An app whose four ad platforms are one fake on loopback.
    static func adPlatforms(_ fake: FakeAdPlatforms) throws -> TestApp {
        try TestApp(
            trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true,
            adPlatforms: AdPlatformSettings(googleURL: fake.url, metaURL: fake.url, tiktokURL: fake.url, snapURL: fake.url))
    }

    /// Connects the project to every platform with the fake's credentials.
    func connectAllPlatforms(_ projectID: String, metaKey: String? = nil) throws {
        let bodies: [(String, String)] = [
            ("google", #"{"developer_token":"\#(FakeAdPlatforms.developerToken)","link_ids":{"ios":"IOSLINK0123","android":"ANDROIDLINK0123"}}"#),
            (
                "meta",
                #"{"dataset_id":"1234567890","access_token":"\#(FakeAdPlatforms.metaToken)","app_id":"55555","app_package":"com.example.shop""#
                    + (metaKey.map { #","install_referrer_key":"\#($0)""# } ?? "") + "}"
            ),
            ("tiktok", #"{"event_source_id":"7300000000000000001","access_token":"\#(FakeAdPlatforms.tiktokToken)","test_event_code":"TEST123"}"#),
            ("snap", #"{"snap_app_id":"0b1f0a7e-snap-app","access_token":"\#(FakeAdPlatforms.snapToken)","app_store_id":"123"}"#),
        ]
        for (platform, body) in bodies {
            let response = try request("PUT", "/admin/v1/projects/\(projectID)/ad-platforms/\(platform)", json: body)
            #expect(response.status == 200, "\(platform): \(response.bodyText)")
        }
    }
}

/// An iPhone's `init` with an IDFA, the consent given and what else `extra` adds to device_data.
private func iosInit(token: String, instance: String, consent: String, extra: String = "") -> String {
    body("init", token: token, instance: instance)
        .replacingOccurrences(
            of: #""adservices_attribution_token":"tok==""#,
            with: #""idfa":"AB12CD34-0000-4000-8000-00000000AA01","att_status":"authorized","consent":\#(consent)\#(extra)"#)
}

private let granted = #"{"is_eea":"1","ad_user_data":"1","ad_personalization":"1"}"#
private let denied = #"{"is_eea":"1","ad_user_data":"0","ad_personalization":"0"}"#

extension [FakeAdPlatforms.Received] {
    /// The install's event first (its deduplication key is `install:…`, the others' `event:…`).
    var installFirst: [FakeAdPlatforms.Received] {
        sorted { ($0.event?["event_id"] as? String ?? "") > ($1.event?["event_id"] as? String ?? "") }
    }
}

@Suite struct AdPlatformTests {
    @Test func anAttributedInstallAndAPurchaseReachEachPlatformInItsDocumentedShape() throws {
        let fake = try FakeAdPlatforms()
        let app = try TestApp.adPlatforms(fake)
        let (projectID, token) = try app.linkrunnerProject()
        try app.connectAllPlatforms(projectID)
        app.startOutbox()
        _ = try app.clickWithBeacon(ip: "198.51.100.80")
        let initialized = iosInit(token: token, instance: "AP-1", consent: granted, extra: #","odm_info":"odm-opaque-value""#)
        #expect(try app.client("init", initialized).status == 200)
        let event =
            #"{"token":"\#(token)","platform":"IOS","install_instance_id":"AP-1","event_name":"purchase","event_data":{"amount":9.99,"currency":"EUR"},"event_id":"ev-1"}"#
        #expect(try app.client("capture-event", event).status == 200)
        #expect(try app.waitForOutboxIdle(timeout: 15))
        let installID = try #require(try app.queryOne("SELECT id FROM installs WHERE install_instance_id = 'AP-1'") { $0.string(0) })

        // Sent concurrently: in the order install, then purchase.
        let google = fake.requests("google").sorted { ($0.query["app_event_type"] ?? "") < ($1.query["app_event_type"] ?? "") }
        let jobs = try app.query("SELECT target_id, event_type, status, last_error FROM outbox_jobs") {
            "\($0.optionalString(0) ?? "") \($0.string(1)) \($0.string(2)) \($0.optionalString(3) ?? "")"
        }
        try #require(google.map { $0.query["app_event_type"] } == ["first_open", "in_app_purchase"], "\(jobs)")
        let firstOpen = try #require(google.first)
        #expect(firstOpen.query["link_id"] == "IOSLINK0123" && firstOpen.query["rdid"] == "AB12CD34-0000-4000-8000-00000000AA01")
        #expect(firstOpen.query["id_type"] == "idfa" && firstOpen.query["lat"] == "0" && firstOpen.query["app_version"] == "2.1")
        #expect(firstOpen.query["os_version"] == "17.4.1" && firstOpen.query["eea"] == "1" && firstOpen.query["ad_user_data"] == "1")
        #expect(firstOpen.query["odm_info"] == "odm-opaque-value" && firstOpen.headers["x-forwarded-for"] == "198.51.100.80")
        #expect(google[1].query["value"] == "9.99" && google[1].query["currency_code"] == "EUR" && google[1].query["odm_info"] == nil)

        let meta = fake.requests("meta").installFirst
        #expect(meta.map { $0.event?["event_name"] as? String } == ["MobileAppInstall", "Purchase"])
        #expect(meta.allSatisfy { $0.path == "/v21.0/1234567890/events" })
        let metaInstall = try #require(meta.first?.event)
        #expect(metaInstall["event_id"] as? String == "install:\(installID)")
        let user = try #require(metaInstall["user_data"] as? [String: Any])
        #expect(user["madid"] as? String == "AB12CD34-0000-4000-8000-00000000AA01" && user["client_ip_address"] as? String == "198.51.100.80")
        #expect(user["anon_id"] as? String == installID)
        let extinfo = try #require((metaInstall["app_data"] as? [String: Any])?["extinfo"] as? [String])
        #expect(extinfo[0] == "i2" && extinfo[1] == "com.example.shop" && extinfo[4] == "17.4.1")
        #expect((meta[1].event?["custom_data"] as? [String: Any])?["currency"] as? String == "EUR")

        let tiktok = fake.requests("tiktok").installFirst
        #expect(tiktok.map { ($0.event.flatMap { $0["event"] as? String }) } == ["InstallApp", "Purchase"])
        #expect(tiktok.allSatisfy { $0.headers["access-token"] == FakeAdPlatforms.tiktokToken && $0.json?["test_event_code"] == nil })
        #expect((tiktok.first?.event?["user"] as? [String: Any])?["idfa"] as? String == "AB12CD34-0000-4000-8000-00000000AA01")
        #expect((tiktok.first?.event?["user"] as? [String: Any])?["att_status"] as? String == "AUTHORIZED")

        let snap = fake.requests("snap").installFirst
        #expect(snap.map { $0.event?["event_name"] as? String } == ["APP_INSTALL", "PURCHASE"])
        #expect(snap.allSatisfy { $0.path == "/v3/0b1f0a7e-snap-app/events" })
        #expect(snap.first?.event?["client_dedup_id"] as? String == snap.first?.event?["event_id"] as? String)
        // Every job delivered, none failed.
        #expect(try app.count("SELECT count(*) FROM outbox_jobs WHERE kind = 'ad_platform' AND status = 'delivered'") == 8)
        // The deliveries list shows each request as sent, its credentials redacted.
        let deliveries = try app.request("GET", "/admin/v1/projects/\(projectID)/deliveries?kind=ad_platform")
        let shown = try #require(deliveries.json?["deliveries"] as? [[String: Any]]).compactMap { $0["last_request"] as? String }
        #expect(shown.count == 8)
        #expect(shown.contains { $0.contains("dev_token=[redacted]") && $0.contains("app_event_type=first_open") })
        #expect(shown.contains { $0.contains("access-token: [redacted]") })
        #expect(!shown.contains { $0.contains(FakeAdPlatforms.developerToken) || $0.contains(FakeAdPlatforms.metaToken) })

        // A sign-up (Linkrunner's trigger) is each platform's registration.
        #expect(try app.client("trigger", body("trigger", token: token, instance: "AP-1")).status == 200)
        #expect(try app.waitForOutboxIdle(timeout: 15))
        #expect(fake.requests("meta").last?.event?["event_name"] as? String == "CompleteRegistration")
        #expect(fake.requests("snap").last?.event?["event_name"] as? String == "SIGN_UP")
        #expect(fake.requests("google").last?.query["app_event_type"] == "sign_up")
    }

    @Test func deniedConsentKeepsIdentifiersBackAndGoogleUploadsAreRefusedAndCounted() throws {
        let fake = try FakeAdPlatforms()
        let app = try TestApp.adPlatforms(fake)
        let (projectID, token) = try app.linkrunnerProject()
        try app.connectAllPlatforms(projectID)
        app.startOutbox()
        #expect(try app.client("init", iosInit(token: token, instance: "AP-2", consent: denied)).status == 200)
        #expect(try app.waitForOutboxIdle(timeout: 15))
        #expect(fake.requests("google").isEmpty)
        let refused = try app.query("SELECT last_error FROM outbox_jobs WHERE kind = 'ad_platform' AND target_id = 'google'") {
            $0.optionalString(0)
        }
        #expect(refused.count == 1 && refused[0]?.hasPrefix("refused: consent") == true)
        let metrics = try app.request("GET", "/metrics")
        #expect(metrics.bodyText.contains(#"attributiond_ad_platform_refused_total{platform="google",reason="consent"} 1"#))
        for platform in ["meta", "snap"] {
            let user = try #require(fake.requests(platform).first?.event?["user_data"] as? [String: Any], "\(platform)")
            #expect(user.isEmpty, "\(platform): \(user)")
        }
        let tiktokUser = try #require(fake.requests("tiktok").first?.event?["user"] as? [String: Any])
        #expect(tiktokUser["idfa"] == nil && tiktokUser["ip"] == nil && tiktokUser["user_agent"] == nil)
        // Meta processes it under Limited Data Use.
        #expect(fake.requests("meta").first?.event?["data_processing_options"] as? [String] == ["LDU"])

        // Consent given later, through the admin API, holds for what follows.
        let installID = try #require(try app.queryOne("SELECT id FROM installs WHERE install_instance_id = 'AP-2'") { $0.string(0) })
        let put = try app.request(
            "PUT", "/admin/v1/projects/\(projectID)/installs/\(installID)/consent",
            json: #"{"eea":true,"ad_user_data":true,"ad_personalization":false}"#)
        #expect(put.status == 200, "\(put.bodyText)")
        #expect((put.json?["consent"] as? [String: Any])?["ad_user_data"] as? Bool == true)
        let event = #"{"token":"\#(token)","platform":"IOS","install_instance_id":"AP-2","event_name":"level_up","event_id":"ev-2"}"#
        #expect(try app.client("capture-event", event).status == 200)
        #expect(try app.waitForOutboxIdle(timeout: 15))
        #expect(fake.requests("google").map { $0.query["app_event_type"] } == ["level_up"])
        #expect(fake.requests("google").first?.query["ad_personalization"] == "0")
        let bad = try app.request("PUT", "/admin/v1/projects/\(projectID)/installs/\(installID)/consent", json: #"{"eea":"maybe"}"#)
        #expect(bad.status == 422 && bad.bodyText.contains("consent.eea"))
    }

    @Test func aFailedAttemptIsRetriedWithTheSameDeduplicationKeyAndDeliveredOnce() throws {
        let fake = try FakeAdPlatforms()
        let app = try TestApp.adPlatforms(fake)
        let (projectID, token) = try app.linkrunnerProject()
        let saved = try app.request(
            "PUT", "/admin/v1/projects/\(projectID)/ad-platforms/meta", json: #"{"dataset_id":"42","access_token":"\#(FakeAdPlatforms.metaToken)"}"#)
        #expect(saved.status == 200)
        let unavailable = #"{"error":{"message":"Service temporarily unavailable","code":2}}"#
        fake.script("meta", [FakeAdPlatforms.Answer(status: .serviceUnavailable, body: unavailable)])
        app.startOutbox()
        #expect(try app.client("init", iosInit(token: token, instance: "AP-3", consent: granted)).status == 200)
        _ = try eventually(timeout: 15) { try app.count("SELECT count(*) FROM outbox_jobs WHERE kind = 'ad_platform' AND status = 'delivered'") == 1 }
        let meta = fake.requests("meta")
        #expect(meta.count == 2)
        #expect(Set(meta.map { $0.event?["event_id"] as? String }).count == 1)
        #expect(try app.count("SELECT attempts FROM outbox_jobs WHERE kind = 'ad_platform'") == 2)
        // A request the platform refuses is not sent again.
        fake.script("meta", [FakeAdPlatforms.Answer(status: .badRequest, body: #"{"error":{"message":"Invalid parameter","code":100}}"#)])
        let event = #"{"token":"\#(token)","platform":"IOS","install_instance_id":"AP-3","event_name":"signup","event_id":"ev-3"}"#
        #expect(try app.client("capture-event", event).status == 200)
        _ = try eventually(timeout: 15) { try app.count("SELECT count(*) FROM outbox_jobs WHERE kind = 'ad_platform' AND status = 'failed'") == 1 }
        #expect(fake.requests("meta").count == 3)
    }

    @Test func googlesClaimTakesAnOrganicInstallAndGoogleHearsWhoWon() throws {
        let fake = try FakeAdPlatforms()
        fake.googleAttributes(minutesAgo: 20)
        let receiver = try WebhookReceiver()
        let app = try TestApp.adPlatforms(fake)
        let (projectID, token) = try app.linkrunnerProject()
        try app.connectAllPlatforms(projectID)
        let hook = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)","events":["install.attributed"]}"#)
        #expect(hook.status == 201)
        app.startOutbox()
        #expect(try app.client("init", iosInit(token: token, instance: "AP-4", consent: granted)).status == 200)
        let installID = try #require(try app.queryOne("SELECT id FROM installs WHERE install_instance_id = 'AP-4'") { $0.string(0) })
        _ = eventually(timeout: 15) { fake.requests("google").contains { $0.path.hasSuffix("cross_network") } }
        let cross = try #require(fake.requests("google").first { $0.path.hasSuffix("cross_network") })
        #expect(cross.query["ad_event_id"] == "Q2xpY2tFdmVudA" && cross.query["attributed"] == "1")
        #expect(try app.count("SELECT count(*) FROM installs WHERE matched_factors = '[\"google_ads\"]' AND attributed") == 1)
        let explain = try app.request("GET", "/admin/v1/projects/\(projectID)/installs/\(installID)/explain")
        let claims = try #require(explain.json?["ad_platform_claims"] as? [[String: Any]])
        #expect(claims.count == 1 && claims[0]["won"] as? Bool == true && claims[0]["campaign_id"] as? String == "123456789")
        #expect(claims[0]["source"] as? String == "google_ads" && claims[0]["campaign_name"] as? String == "Spring UAC")
        #expect(explain.json?["matched_factors"] as? [String] == ["google_ads"])
        // The install.attributed webhook tells of the claim.
        let attributed = try #require(receiver.wait(for: 1).first?.json?["data"] as? [String: Any])
        let attribution = try #require(attributed["attribution"] as? [String: Any])
        #expect(attribution["source"] as? String == "google_ads")
        #expect((attribution["ad_platform"] as? [String: Any])?["campaign_name"] as? String == "Spring UAC")
        // Stats by source name Google, not a link.
        let stats = try app.request("GET", "/admin/v1/projects/\(projectID)/stats")
        let sources = try #require((stats.json?["totals"] as? [String: Any])?["installs_by_source"] as? [String: Int])
        #expect(sources["google_ads"] == 1 && sources["link"] == 0 && sources["organic"] == 0, "\(sources)")
        let rows = try #require(stats.json?["ad_platforms"] as? [[String: Any]])
        #expect(rows.count == 1 && rows[0]["campaign_id"] as? String == "123456789" && rows[0]["installs"] as? Int == 1)
        // The attribution-data call tells the app.
        let polled = try app.client("attribution-data", body("attribution-data", token: token, instance: "AP-4"))
        #expect((polled.json?["data"] as? [String: Any])?["attribution_source"] as? String != "ORGANIC")
    }

    @Test func googlesClaimLosesToALaterClickOfOursAndGoogleHearsSo() throws {
        let fake = try FakeAdPlatforms()
        fake.googleAttributes(minutesAgo: 120)
        let app = try TestApp.adPlatforms(fake)
        let (projectID, token) = try app.linkrunnerProject()
        try app.connectAllPlatforms(projectID)
        app.startOutbox()
        let clickID = try app.clickWithBeacon(ip: "198.51.100.80")
        // A deterministic click: the Play/AdServices-free way, the click id in the install referrer.
        let referred = iosInit(token: token, instance: "AP-5", consent: granted, extra: #","install_ref":"utm_source=x&click_id=\#(clickID)""#)
        #expect(try app.client("init", referred).status == 200)
        _ = eventually(timeout: 15) { fake.requests("google").contains { $0.path.hasSuffix("cross_network") } }
        #expect(fake.requests("google").first { $0.path.hasSuffix("cross_network") }?.query["attributed"] == "0")
        #expect(try app.count("SELECT count(*) FROM installs WHERE click_id = '\(clickID)' AND match_type = 'deterministic'") == 1)
    }

    @Test func metasEncryptedInstallReferrerBecomesAClaimThatWinsAnOrganicInstall() throws {
        let fake = try FakeAdPlatforms()
        let app = try TestApp.adPlatforms(fake)
        let (projectID, apiKey, _) = try app.projectWithLink()
        let key = (0..<32).map { _ in UInt8.random(in: 0...255) }
        try app.connectAllPlatforms(projectID, metaKey: AESGCM.hex(key))
        app.startOutbox()
        let nonce = (0..<12).map { _ in UInt8.random(in: 0...255) }
        let plaintext =
            #"{"ad_id":"6001","adgroup_id":"6001","adgroup_name":"Ad","campaign_id":"5001","campaign_name":"Ad set","campaign_group_id":"4001","campaign_group_name":"Spring","account_id":"3001","ad_objective_name":"APP_INSTALLS"}"#
        let sealed = try #require(AESGCM.seal(Array(plaintext.utf8), key: key, nonce: nonce))
        let clickedAt = Int(Date().timeIntervalSince1970) - 600
        let content = #"{"app":55555,"t":\#(clickedAt),"source":{"data":"\#(AESGCM.hex(sealed))","nonce":"\#(AESGCM.hex(nonce))"}}"#
        let referrer =
            "utm_source=apps.facebook.com&utm_campaign=fb4a&utm_content="
            + (content.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        // A LinkForty install on Android, with the referrer as the app read it from Meta.
        let install =
            #"{"userAgent":"Shop/2.1 (Linux; Android 14; Pixel 8)","platform":"Android","platformVersion":"14","appVersion":"2.1","#
            + #""deviceId":"gaid-0000-4000-8000-000000000001","meta_install_referrer":"\#(referrer)","#
            + #""consent":{"eea":false,"ad_user_data":true}}"#
        let response = try app.request("POST", "/api/sdk/v1/install", json: install, adminKey: apiKey, headers: ["X-Forwarded-For": "198.51.100.90"])
        #expect(response.status == 200, "\(response.bodyText)")
        let installID = try #require(response.json?["installId"] as? String)
        _ = try eventually(timeout: 15) { try app.count("SELECT count(*) FROM ad_platform_claims WHERE won") == 1 }
        #expect(try app.count("SELECT count(*) FROM installs WHERE matched_factors = '[\"meta_install_referrer\"]'") == 1)
        let explain = try app.request("GET", "/admin/v1/projects/\(projectID)/installs/\(installID)/explain")
        let claim = try #require((explain.json?["ad_platform_claims"] as? [[String: Any]])?.first)
        #expect(claim["campaign_id"] as? String == "4001" && claim["ad_group_id"] as? String == "5001" && claim["ad_id"] as? String == "6001")
        // Stats list Meta's installs by campaign and ad set.
        let platforms = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json?["ad_platforms"] as? [[String: Any]])
        #expect(platforms.first?["ad_group_id"] as? String == "5001" && platforms.first?["ad_group_name"] as? String == "Ad set", "\(platforms)")
        // The referrer went to Meta with the install, as Meta's app_data takes it.
        #expect((fake.requests("meta").first?.event?["app_data"] as? [String: Any])?["install_referrer"] as? String == referrer)
        // A referrer that the key does not open is no claim.
        #expect(MetaInstallReferrer.decrypt(referrer, keyHex: AESGCM.hex(key))?.claim.adID == "6001")
        #expect(MetaInstallReferrer.decrypt(referrer, keyHex: String(repeating: "0", count: 64)) == nil)
    }

    @Test func theGooglePlayReferrersGclidGoesWithEveryAndroidEvent() throws {
        let fake = try FakeAdPlatforms()
        let app = try TestApp.adPlatforms(fake)
        let (projectID, token) = try app.linkrunnerProject()
        try app.connectAllPlatforms(projectID)
        app.startOutbox()
        let android =
            #"{"token":"\#(token)","platform":"ANDROID","install_instance_id":"AP-7","app_version":"3.0","device_data":{"device":"Pixel 8","system_version":"14","gaid":"38400000-8cf0-11bd-b23e-10b96e40000d","install_referrer":"utm_source=google-play&utm_medium=cpc&gclid=BX3QojHp4mY5MrJtFM_d1u","user_agent":"Shop/3.0 (Linux; Android 14; Pixel 8)","consent":{"is_eea":"0","ad_user_data":"1"}}}"#
        #expect(try app.client("init", android).status == 200)
        let event = #"{"token":"\#(token)","platform":"ANDROID","install_instance_id":"AP-7","event_name":"add_to_cart","event_id":"ev-7"}"#
        #expect(try app.client("capture-event", event).status == 200)
        #expect(try app.waitForOutboxIdle(timeout: 15))
        let google = fake.requests("google")
        // Both, in the order the outbox's concurrent deliveries finished.
        #expect(google.compactMap { $0.query["app_event_type"] }.sorted() == ["add_to_cart", "first_open"])
        #expect(google.allSatisfy { $0.query["market_referrer_gclid"] == "BX3QojHp4mY5MrJtFM_d1u" })
        #expect(google.allSatisfy { $0.query["link_id"] == "ANDROIDLINK0123" && $0.query["id_type"] == "advertisingid" })
        #expect(fake.requests("meta").first?.event.flatMap { ($0["app_data"] as? [String: Any])?["extinfo"] as? [String] }?.first == "a2")
    }

    @Test func connectionsAreCheckedKeptAndShownWithSecretsMasked() throws {
        let fake = try FakeAdPlatforms()
        let app = try TestApp.adPlatforms(fake)
        let (projectID, _) = try app.linkrunnerProject()
        let path = "/admin/v1/projects/\(projectID)/ad-platforms"
        #expect(try app.request("PUT", path + "/google", json: #"{"developer_token":"abc"}"#).status == 422)
        #expect(try app.request("PUT", path + "/meta", json: #"{"dataset_id":"1"}"#).bodyText.contains("access_token"))
        #expect(try app.request("PUT", path + "/meta", json: #"{"dataset_id":"1","access_token":"t","pixel":"x"}"#).status == 422)
        #expect(
            try app.request("PUT", path + "/meta", json: #"{"dataset_id":"1","access_token":"t","install_referrer_key":"short"}"#).bodyText.contains(
                "install_referrer_key"))
        #expect(try app.request("PUT", path + "/myspace", json: "{}").status == 404)
        #expect(try app.request("GET", path + "/snap").status == 404)
        let saved = try app.request(
            "PUT", path + "/google",
            json: #"{"developer_token":"dev-token-secret-9876","link_ids":{"ios":"L1"},"event_mapping":{"signup":"sign_up","debug_ping":null}}"#)
        #expect(saved.status == 200, "\(saved.bodyText)")
        let shown = try app.request("GET", path + "/google")
        #expect(shown.json?["developer_token"] as? String == "••••9876" && !shown.bodyText.contains("dev-token-secret"))
        #expect((shown.json?["link_ids"] as? [String: Any])?["ios"] as? String == "L1")
        #expect((shown.json?["event_mapping"] as? [String: Any])?["debug_ping"] is NSNull)
        // Saved again without the secret (a form that shows it masked): the secret stays.
        #expect(try app.request("PUT", path + "/google", json: #"{"link_ids":{"ios":"L2"}}"#).status == 200)
        let stored = try app.services.app.adPlatforms.connection(projectID: projectID, platform: .google)
        #expect(stored.secrets["developer_token"] == "dev-token-secret-9876" && stored.settings["link_id_ios"] == "L2")
        #expect((try app.request("GET", path).json?["ad_platforms"] as? [[String: Any]])?.count == 1)
        #expect(try app.request("DELETE", path + "/google").status == 204)
        #expect(try app.request("DELETE", path + "/google").status == 404)
    }

    @Test func aTestEventUsesThePlatformsTestMode() throws {
        let fake = try FakeAdPlatforms()
        let app = try TestApp.adPlatforms(fake)
        let (projectID, _) = try app.linkrunnerProject()
        try app.connectAllPlatforms(projectID)
        app.startOutbox()
        for platform in ["tiktok", "snap"] {
            let response = try app.request("POST", "/admin/v1/projects/\(projectID)/ad-platforms/\(platform)/test")
            #expect(response.status == 202 && response.json?["job_id"] is String)
        }
        #expect(try app.waitForOutboxIdle(timeout: 15))
        #expect(fake.requests("tiktok").first?.json?["test_event_code"] as? String == "TEST123")
        #expect(fake.requests("snap").first?.path == "/v3/0b1f0a7e-snap-app/events/validate")
        #expect(try app.count("SELECT count(*) FROM outbox_jobs WHERE kind = 'ad_platform' AND status = 'delivered'") == 2)
    }
}

@Suite struct ConsentWebhookTests {
    @Test func theInstallCreatedWebhookCarriesTheConsentTheSDKTold() throws {
        let receiver = try WebhookReceiver()
        let app = try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true)
        let (projectID, token) = try app.linkrunnerProject()
        let created = try app.request(
            "POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)","events":["install.created"]}"#)
        #expect(created.status == 201)
        app.startOutbox()
        #expect(try app.client("init", iosInit(token: token, instance: "CW-1", consent: denied)).status == 200)
        #expect(try app.client("init", body("init", token: token, instance: "CW-2")).status == 200)
        _ = eventually(timeout: 15) { receiver.all.count == 2 }
        let byInstance = Dictionary(
            uniqueKeysWithValues: try receiver.all.map { received -> (String, [String: Any]) in
                let data = try #require(received.json?["data"] as? [String: Any])
                let installID = try #require(data["install_id"] as? String)
                let instance = try #require(try app.queryOne("SELECT install_instance_id FROM installs WHERE id = ?", installID) { $0.string(0) })
                return (instance, data)
            })
        let consent = try #require(byInstance["CW-1"]?["consent"] as? [String: Any])
        #expect(consent["eea"] as? Bool == true && consent["ad_user_data"] as? Bool == false && consent["att_status"] as? String == "authorized")
        #expect(byInstance["CW-2"]?["consent"] == nil)
    }
}
