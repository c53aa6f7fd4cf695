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

/// campaign_data as the Linkrunner iOS SDK reads it: string ids, dates without fractional seconds.
private struct AppleAdsCampaignData: Decodable {
    let id: String
    let name: String
    let type: String
    let ad_network: String?
    let group_name: String?
    let ad_network_campaign_id: String?
    let ad_set_id: String?
    let ad_creative_id: String?
    let installed_at: Date?
    let store_click_at: Date?
}

private struct AttributionData: Decodable {
    let attribution_source: String
    let campaign_data: AppleAdsCampaignData?
}

private struct Envelope: Decodable { let data: AttributionData? }

/// A token that is valid base64 and names its test (the fake scripts answers per token).
private func adServicesToken(_ name: String) -> String { Data("adservices-\(name)-\(UUID().uuidString)".utf8).base64EncodedString() }

extension TestApp {
    /// An app on Apple Ads: a Linkrunner project whose AdServices exchange goes to `fake`.
    static func appleAds(_ fake: FakeAdServices) throws -> TestApp {
        try TestApp(trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true, appleAds: AppleAdsSettings(url: fake.url, retrySeconds: 1))
    }

    /// `init` with the seed client's device data carrying `adServicesToken`.
    func initWithToken(_ token: String, projectToken: String, instance: String, ip: String = "198.51.100.80") throws -> TestResponse {
        try client("init", body("init", token: projectToken, instance: instance).replacingOccurrences(of: #""tok==""#, with: #""\#(token)""#), ip: ip)
    }

    /// Polls `attribution-data` as the seed client does (every 2 s there, 0.25 s here) until it
    /// reports `source`, for at most `seconds`.
    func pollAttribution(projectToken: String, instance: String, until source: String, seconds: Double = 10) throws -> AttributionDataPoll {
        var last: TestResponse?
        _ = try eventually(timeout: seconds) {
            last = try client("attribution-data", body("attribution-data", token: projectToken, instance: instance))
            return (last?.json?["data"] as? [String: Any])?["attribution_source"] as? String == source
        }
        return AttributionDataPoll(response: try #require(last))
    }

    func claimStatus(_ installID: String) throws -> (status: String, token: String?, won: Bool, test: Bool)? {
        try queryOne("SELECT status, token, won, is_test FROM apple_ads_claims WHERE install_id = ?", installID) {
            ($0.string(0), $0.optionalString(1), $0.bool(2), $0.bool(3))
        }
    }

    func installID(instance: String) throws -> String {
        try #require(try queryOne("SELECT id FROM installs WHERE install_instance_id = ?", instance) { $0.string(0) })
    }

    /// Waits (bounded) until the claim leaves `pending`.
    func waitForClaim(_ installID: String, seconds: Double = 15) throws -> String? {
        _ = try eventually(timeout: seconds) { try claimStatus(installID)?.status != "pending" }
        return try claimStatus(installID)?.status
    }
}

struct AttributionDataPoll {
    let response: TestResponse
    var source: String? { (response.json?["data"] as? [String: Any])?["attribution_source"] as? String }
    var campaign: [String: Any]? { (response.json?["data"] as? [String: Any])?["campaign_data"] as? [String: Any] }
}

@Suite struct AppleAdsTests {
    @Test func anImmediateAnswerShowsAsAppleSearchAdsWithinTheSeedClientsPollingWindow() throws {
        let fake = try FakeAdServices()
        let app = try TestApp.appleAds(fake)
        let (_, projectToken) = try app.linkrunnerProject()
        app.startOutbox()
        let token = adServicesToken("now")
        let clickDate = FakeAdServices.minuteDate(Date().addingTimeInterval(-600))
        fake.script(token, [FakeAdServices.attributed(clickDate: clickDate)])

        let started = Date()
        #expect(try app.initWithToken(token, projectToken: projectToken, instance: "AA-1").status == 200)
        let poll = try app.pollAttribution(projectToken: projectToken, instance: "AA-1", until: "APPLE_SEARCH_ADS")
        #expect(poll.source == "APPLE_SEARCH_ADS", "\(String(decoding: poll.response.body, as: UTF8.self))")
        // The seed client gives up after 5 polls 2 s apart.
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(fake.tokens == [token] && fake.contentTypes == ["text/plain"])

        // What the iOS SDK decodes: strings, ISO 8601 without fractions.
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let decoded = try #require(try decoder.decode(Envelope.self, from: Data(poll.response.body)).data)
        let campaign = try #require(decoded.campaign_data)
        #expect(campaign.id == "542370539" && campaign.name == "Apple Search Ads 542370539" && campaign.type == "INORGANIC")
        #expect(campaign.ad_network == "APPLE_SEARCH_ADS" && campaign.group_name == "542317095")
        #expect(campaign.ad_network_campaign_id == "542370539" && campaign.ad_set_id == "542317095" && campaign.ad_creative_id == "542317136")
        #expect(campaign.installed_at != nil)
        #expect(poll.campaign?["store_click_at"] as? String == clickDate.replacingOccurrences(of: "Z", with: ":00Z"))

        let installID = try app.installID(instance: "AA-1")
        let claim = try #require(try app.claimStatus(installID))
        #expect(claim.status == "attributed" && claim.token == nil && claim.won && !claim.test)
        #expect(try app.count("SELECT count(*) FROM installs WHERE matched_factors = '[\"apple_ads\"]' AND match_type = 'deterministic'") == 1)
        // One exchange per install: a later call with another token sends nothing.
        #expect(try app.initWithToken(adServicesToken("again"), projectToken: projectToken, instance: "AA-1").status == 200)
        let again = try app.client("attribution-data", body("attribution-data", token: projectToken, instance: "AA-1"))
        #expect((again.json?["data"] as? [String: Any])?["attribution_source"] as? String == "APPLE_SEARCH_ADS")
        try app.settle()
        #expect(
            try app.count("SELECT count(*) FROM outbox_jobs WHERE kind = 'apple_ads'")
                + (try app.count("SELECT count(*) FROM outbox_new WHERE kind = 'apple_ads'")) == 1)
    }

    @Test func whileApplesAnswerIsPendingAttributionDataHasNoCampaignSoTheFirstLaunchSeesIt() throws {
        let fake = try FakeAdServices()
        let app = try TestApp.appleAds(fake)
        let (_, projectToken) = try app.linkrunnerProject()
        let token = adServicesToken("late")
        let clickDate = FakeAdServices.minuteDate(Date().addingTimeInterval(-600))
        // Apple's "not yet" once, then the answer a second later (retrySeconds: 1).
        fake.script(token, [FakeAdServices.Answer(status: .notFound, body: ""), FakeAdServices.attributed(clickDate: clickDate)])
        #expect(try app.initWithToken(token, projectToken: projectToken, instance: "AA-late").status == 200)
        let before = try app.client("attribution-data", body("attribution-data", token: projectToken, instance: "AA-late"))
        let pending = try #require(before.json?["data"] as? [String: Any])
        #expect(pending["campaign_data"] == nil && pending["attribution_source"] != nil, "\(pending)")
        app.startOutbox()
        let poll = try app.pollAttribution(projectToken: projectToken, instance: "AA-late", until: "APPLE_SEARCH_ADS")
        #expect(poll.source == "APPLE_SEARCH_ADS" && poll.campaign?["ad_network"] as? String == "APPLE_SEARCH_ADS", "\(poll.response.bodyText)")
    }

    @Test func statsBreakAppleAdsInstallsDownByCampaignAdGroupAndKeyword() throws {
        let fake = try FakeAdServices()
        let app = try TestApp.appleAds(fake)
        let (projectID, projectToken) = try app.linkrunnerProject()
        app.startOutbox()
        let clickDate = FakeAdServices.minuteDate(Date().addingTimeInterval(-600))
        for (index, keyword) in [87675432, 87675432, 11111111].enumerated() {
            let token = adServicesToken("stats-\(index)")
            fake.script(token, [FakeAdServices.attributed(keyword: keyword, clickDate: clickDate)])
            #expect(try app.initWithToken(token, projectToken: projectToken, instance: "S-\(index)").status == 200)
            #expect(try app.waitForClaim(try app.installID(instance: "S-\(index)")) == "attributed")
        }
        // An organic install, and Apple's developer-mode answer (never a paid install here).
        #expect(try app.client("init", body("init", token: projectToken, instance: "S-organic")).status == 200)
        let developer = adServicesToken("stats-dev")
        fake.script(
            developer, [FakeAdServices.attributed(campaign: 1234567890, adGroup: 1234567890, keyword: 12323222, ad: 1234567890, clickDate: clickDate)]
        )
        #expect(try app.initWithToken(developer, projectToken: projectToken, instance: "S-dev").status == 200)
        #expect(try app.waitForClaim(try app.installID(instance: "S-dev")) == "attributed")
        #expect(
            try app.client(
                "capture-event",
                body(
                    "init", token: projectToken, instance: "S-0",
                    extra: #","event_name":"purchase","event_data":{"amount":4.5,"currency":"EUR"}"#)
            ).status == 200)
        #expect(try app.client("capture-payment", body("capture-payment", token: projectToken, instance: "S-2")).status == 200)

        let stats = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json)
        let totals = try #require(stats["totals"] as? [String: Any])
        #expect(totals["installs"] as? Int == 5)
        #expect(totals["installs_by_source"] as? [String: Int] == ["link": 0, "apple_ads": 3, "organic": 2])
        let groups = try #require(stats["apple_ads"] as? [[String: Any]])
        #expect(groups.count == 2, "\(groups)")
        func group(_ keyword: String) -> [String: Any]? { groups.first { $0["keyword_id"] as? String == keyword }?["counts"] as? [String: Any] }
        #expect(
            groups.allSatisfy {
                $0["campaign_id"] as? String == "542370539" && $0["ad_group_id"] as? String == "542317095" && $0["test"] as? Bool == false
            })
        #expect(group("87675432")?["installs"] as? Int == 2 && group("87675432")?["events"] as? Int == 1)
        #expect(group("87675432")?["event_revenue"] as? [String: Double] == ["EUR": 4.5])
        #expect(group("11111111")?["installs"] as? Int == 1 && group("11111111")?["payment_revenue"] as? [String: Double] == ["USD": 99.99])

        // The dashboard's overview shows the same rows.
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let overview = try browser.get("/projects/\(projectID)?range=24h").bodyText
        #expect(overview.contains("<h2>Apple Ads</h2>"))
        #expect(overview.contains(#"<td>87675432</td><td class="n">2</td><td class="n">1</td>"#), "\(overview)")
        #expect(overview.contains(#"<td>11111111</td><td class="n">1</td><td class="n">0</td><td class="n">USD 99.99</td>"#))
        #expect(!overview.contains("12323222"))  // Apple's developer-mode answer is no paid install here

        // The command line shows the same rows.
        let table = try run(["stats", "--project", projectID] + app.databaseArguments)
        #expect(table.status == 0, "\(table.stderr)")
        let rows = table.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(
            rows.contains { $0.starts(with: ["apple", "ads", "542370539/542317095/87675432", "0", "0", "2", "2", "2", "0", "0", "1"]) },
            "\(table.stdout)")
    }

    /// With Campaign Management API credentials, the names of campaigns, ad groups and keywords
    /// are fetched once (OAuth client credentials, an ES256-signed client secret) and shown.
    @Test func namesComeFromTheCampaignManagementAPIWhenConfigured() throws {
        let fake = try FakeAdServices()
        fake.signingKey = TestKeys.p256
        fake.campaignNames = ["542370539": "Spring Search"]
        fake.adGroupNames = ["542317095": "Brand Terms"]
        fake.keywordTexts = ["87675432": "photo editor"]
        let app = try TestApp(
            trustedProxies: ["127.0.0.1"], allowPrivateOutbound: true,
            appleAds: AppleAdsSettings(url: fake.url, retrySeconds: 1, oauthURL: fake.oauthURL, apiURL: fake.apiURL))
        let (projectID, projectToken) = try app.linkrunnerProject()
        let pem = TestKeys.p256.split(separator: "\n").joined(separator: #"\n"#)
        let credentials = #"{"client_id":"SEARCHADS.abc","team_id":"TEAM123","key_id":"KEY123","org_id":40669820,"private_key":"\#(pem)"}"#
        let saved = try app.request("PUT", "/admin/v1/projects/\(projectID)/apple-ads", json: credentials)
        #expect(saved.status == 200 && saved.json?["org_id"] as? String == "40669820")
        #expect(!String(decoding: saved.body, as: UTF8.self).contains("PRIVATE KEY"))
        #expect(!String(decoding: try app.request("GET", "/admin/v1/projects/\(projectID)/apple-ads").body, as: UTF8.self).contains("PRIVATE KEY"))
        let badKey = try app.request(
            "PUT", "/admin/v1/projects/\(projectID)/apple-ads",
            json:
                #"{"client_id":"c","team_id":"t","key_id":"k","org_id":"1","private_key":"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"}"#
        )
        #expect(badKey.status == 422 && String(decoding: badKey.body, as: UTF8.self).contains("private_key"))
        app.startOutbox()

        let clickDate = FakeAdServices.minuteDate(Date().addingTimeInterval(-600))
        for index in 0..<2 {
            let token = adServicesToken("names-\(index)")
            fake.script(token, [FakeAdServices.attributed(clickDate: clickDate)])
            #expect(try app.initWithToken(token, projectToken: projectToken, instance: "N-\(index)").status == 200)
            #expect(try app.waitForClaim(try app.installID(instance: "N-\(index)")) == "attributed")
            // The names are fetched in the background, after the answer is recorded.
            _ = try eventually { try app.count("SELECT count(*) FROM apple_ads_names") >= 3 }
            #expect(try app.count("SELECT count(*) FROM apple_ads_names") == 3)
        }
        let poll = try app.pollAttribution(projectToken: projectToken, instance: "N-1", until: "APPLE_SEARCH_ADS")
        #expect(poll.campaign?["name"] as? String == "Spring Search" && poll.campaign?["ad_set_name"] as? String == "Brand Terms")
        #expect(poll.campaign?["id"] as? String == "542370539")
        let group = try #require((try app.request("GET", "/admin/v1/projects/\(projectID)/stats").json?["apple_ads"] as? [[String: Any]])?.first)
        #expect(group["campaign_name"] as? String == "Spring Search" && group["ad_group_name"] as? String == "Brand Terms")
        #expect(group["keyword"] as? String == "photo editor" && group["keyword_id"] as? String == "87675432")
        // Names are cached: the second answer fetched nothing more, under one access token.
        #expect(fake.lookups.count == 3 && fake.tokenRequests == 1, "\(fake.lookups) \(fake.tokenRequests)")
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/apple-ads").status == 204)
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/apple-ads").json?["configured"] as? Bool == false)
    }

    /// A project that turns Apple Ads off before its queued exchange is sent sends nothing.
    @Test func anExchangeQueuedBeforeTheProjectTurnedAppleAdsOffIsNotSent() throws {
        let fake = try FakeAdServices()
        let app = try TestApp.appleAds(fake)
        let (projectID, projectToken) = try app.linkrunnerProject()
        let token = adServicesToken("turned-off")
        #expect(try app.initWithToken(token, projectToken: projectToken, instance: "O-1").status == 200)
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"apple_ads":false}"#).status == 200)
        app.startOutbox()
        let installID = try app.installID(instance: "O-1")
        #expect(try app.waitForClaim(installID) == "failed")
        #expect(try app.claimStatus(installID)?.token == nil)
        #expect(fake.tokens.isEmpty)
    }

    /// SIGKILL while the exchange waits for Apple: after the restart it is sent again and Apple's
    /// answer becomes the install's attribution.
    @Test func anExchangeCutByKillNineHappensAfterTheRestart() throws {
        let fake = try FakeAdServices()
        let token = adServicesToken("kill")
        fake.script(
            token,
            [
                FakeAdServices.Answer(status: .ok, body: #"{"attribution":false}"#, wait: 30),
                FakeAdServices.attributed(clickDate: FakeAdServices.minuteDate(Date().addingTimeInterval(-300))),
            ])
        let adminKey = "apple-ads-admin-key-0123456789"
        let environment = [
            "ATTRIBUTIOND_ADMIN_KEY": adminKey, "ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true",
            "ATTRIBUTIOND_APPLE_ADS_URL": fake.url, "ATTRIBUTIOND_APPLE_ADS_RETRY_SECONDS": "1",
            "ATTRIBUTIOND_OUTBOUND_REQUEST_TIMEOUT_SECONDS": "2",
        ]
        let first = try ServerProcess(environment: environment)
        func send(_ port: UInt16, _ path: String, _ json: String, admin: Bool) throws -> TestResponse? {
            let client = try RawClient(port: port, receiveTimeout: 10)
            let auth = admin ? "Authorization: Bearer \(adminKey)\r\n" : ""
            client.send("POST \(path) HTTP/1.1\r\nHost: t\r\n\(auth)Content-Length: \(json.utf8.count)\r\n\r\n\(json)")
            return client.readResponse()
        }
        let project = try #require(try send(first.port, "/admin/v1/projects", #"{"name":"Shop"}"#, admin: true)?.json)
        let projectToken = try #require(project["token"] as? String)
        let initialized = try send(
            first.port, "/api/client/init",
            #"{"token":"\#(projectToken)","platform":"IOS","install_instance_id":"k-1","device_data":{"idfv":"6D92078A-8246-4BA4-AE5B-76104861E7DC","adservices_attribution_token":"\#(token)"}}"#,
            admin: false)
        let installID = try #require((initialized?.json?["data"] as? [String: Any])?["install_id"] as? String)
        #expect(fake.wait(for: 1, of: token) == 1)  // the exchange hangs in Apple's hands now
        #expect(first.terminateAndWait(signal: SIGKILL) == 128 + SIGKILL)

        let second = try ServerProcess(folder: first.folder, environment: environment)
        var status: String?
        _ = try eventually(timeout: 30) {
            let connection = try SQLiteConnection(path: second.databasePath, mode: .readOnly)
            status = try connection.queryOne("SELECT status FROM apple_ads_claims WHERE install_id = ?", installID) { $0.string(0) }
            return status == "attributed"
        }
        #expect(status == "attributed")
        #expect(fake.tokens.filter { $0 == token }.count == 2)
        #expect(second.terminateAndWait() == 0)
        withExtendedLifetime(first) {}  // its folder holds the second server's database
    }

    /// Each of Apple's answers and faults, one install each, all at once.
    @Test func everyAnswerAndFaultEndsAsAppleSays() throws {
        let fake = try FakeAdServices()
        let app = try TestApp.appleAds(fake)
        let (_, projectToken) = try app.linkrunnerProject()
        app.startOutbox(waits: [0.2, 0.2, 0.2], timeout: 2)
        let clickDate = FakeAdServices.minuteDate(Date().addingTimeInterval(-3600))
        let notFound = FakeAdServices.Answer(status: .notFound, body: #"{"error":"not found"}"#)
        let cases: [(name: String, answers: [FakeAdServices.Answer], status: String, exchanges: Int)] = [
            ("false", [FakeAdServices.notAttributed], "not_attributed", 1),
            ("third-try", [notFound, notFound, FakeAdServices.attributed(clickDate: clickDate)], "attributed", 3),
            ("refused", [FakeAdServices.Answer(status: .badRequest, body: "{}")], "failed", 1),
            (
                "apple-down", [FakeAdServices.Answer(status: .internalServerError, body: "{}"), FakeAdServices.attributed(clickDate: clickDate)],
                "attributed", 2
            ),
            (
                "stall",
                [FakeAdServices.Answer(status: .ok, body: #"{"attribution":false}"#, wait: 4), FakeAdServices.attributed(clickDate: clickDate)],
                "attributed", 2
            ),
            ("malformed", [FakeAdServices.Answer(status: .ok, body: "<html>maintenance</html>")], "failed", 1),
            ("bad-date", [FakeAdServices.Answer(status: .ok, body: #"{"attribution":true,"campaignId":1,"clickDate":"yesterday"}"#)], "failed", 1),
        ]
        var tokens: [String: String] = [:]
        for (index, testCase) in cases.enumerated() {
            let token = adServicesToken(testCase.name)
            tokens[testCase.name] = token
            fake.script(token, testCase.answers)
            #expect(try app.initWithToken(token, projectToken: projectToken, instance: "F-\(index)").status == 200)
        }
        for (index, testCase) in cases.enumerated() {
            let installID = try app.installID(instance: "F-\(index)")
            #expect(try app.waitForClaim(installID) == testCase.status, "\(testCase.name)")
            #expect(fake.tokens.filter { $0 == tokens[testCase.name] }.count == testCase.exchanges, "\(testCase.name)")
            #expect(try app.claimStatus(installID)?.token == nil, "\(testCase.name): the token is dropped once Apple answered for good")
        }
        // 404 four times: given up (three quick tries, one later).
        let never = adServicesToken("never")
        fake.script(never, Array(repeating: notFound, count: 4))
        #expect(try app.initWithToken(never, projectToken: projectToken, instance: "F-never").status == 200)
        #expect(fake.wait(for: 3, of: never) == 3)
        #expect(
            try app.claimStatus(try app.installID(instance: "F-never"))?.status == "pending", "the fourth try waits a minute (12 × retry_seconds)")
        let deliveries = try #require(
            try app.request("GET", "/admin/v1/projects/\(try app.installProject())/deliveries?kind=apple_ads").json?["deliveries"] as? [[String: Any]]
        )
        #expect(deliveries.contains { $0["status"] as? String == "failed" && $0["last_status_code"] as? Int == 400 })
    }

    @Test func appleBeatsAFingerprintMatchButNotALaterLinkTouch() throws {
        let fake = try FakeAdServices()
        let receiver = try WebhookReceiver()
        let app = try TestApp.appleAds(fake)
        let (projectID, projectToken) = try app.linkrunnerProject()
        #expect(
            try app.request("POST", "/admin/v1/projects/\(projectID)/webhooks", json: #"{"url":"\#(receiver.url)","events":["install.attributed"]}"#)
                .status == 201)
        app.startOutbox()

        // A tap in Safari, then the install from the same network: a probabilistic link match, then Apple's claim.
        let clickID = try app.clickWithBeacon(ip: "198.51.100.80")
        try app.settle()
        let token = adServicesToken("fingerprint")
        fake.script(token, [FakeAdServices.attributed(clickDate: FakeAdServices.minuteDate(Date().addingTimeInterval(-1800)))])
        let initialized = try app.initWithToken(token, projectToken: projectToken, instance: "P-1")
        #expect((initialized.json?["data"] as? [String: Any])?["attribution_source"] as? String == "INORGANIC")
        let installID = try app.installID(instance: "P-1")
        #expect(try app.waitForClaim(installID) == "attributed")
        #expect(try app.claimStatus(installID)?.won == true)
        // The click is free again; the install is Apple's; endpoints hear of it.
        #expect(try app.count("SELECT count(*) FROM clicks WHERE click_id = '\(clickID)' AND install_id IS NULL AND claimed_at IS NULL") == 1)
        let webhook = try #require(receiver.wait(for: 1).first?.json)
        #expect(webhook["type"] as? String == "install.attributed")
        let attribution = try #require((webhook["data"] as? [String: Any])?["attribution"] as? [String: Any])
        #expect(attribution["source"] as? String == "apple_search_ads")
        #expect((attribution["apple_ads"] as? [String: Any])?["campaign_id"] as? String == "542370539")
        // The explanation names the claim that decided, and the tap it overtook.
        let explained = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/installs/\(installID)/explain").json)
        #expect(explained["decided_by"] as? String == "apple_ads", "\(explained)")
        let claims = try #require(explained["claims"] as? [[String: Any]])
        #expect(claims.first?["won"] as? Bool == true && claims.first?["campaign_id"] as? String == "542370539")
        let tap = try #require((explained["candidates"] as? [[String: Any]])?.first { $0["click_id"] as? String == clickID })
        #expect((tap["outcome"] as? String)?.hasPrefix("overtaken") == true, "\(tap)")
        // The dashboard's install page says the same.
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = try browser.get("/projects/\(projectID)/installs/\(installID)")
        #expect(page.bodyText.contains("Decided by <b>apple_ads</b>") && page.bodyText.contains("Apple Ads claim"), "\(page.bodyText.prefix(400))")

        // An app open through the link carries the IDFV: the install matches it deterministically,
        // and Apple's tap two days earlier is the older touch: the link keeps it.
        #expect(
            try app.client(
                "handle-deeplink", body("handle-deeplink", token: projectToken, instance: "D-1", extra: #","deeplink_url":"http://test/summer""#)
            ).status == 200)
        try app.settle()
        let older = adServicesToken("older")
        fake.script(older, [FakeAdServices.attributed(clickDate: FakeAdServices.minuteDate(Date().addingTimeInterval(-2 * 86_400)))])
        #expect(try app.initWithToken(older, projectToken: projectToken, instance: "D-1", ip: "203.0.113.5").status == 200)
        let linked = try app.installID(instance: "D-1")
        #expect(try app.waitForClaim(linked) == "attributed")
        #expect(try app.claimStatus(linked)?.won == false)
        let notChosen = try #require(try app.request("GET", "/admin/v1/projects/\(projectID)/installs/\(linked)/explain").json)
        #expect(notChosen["decided_by"] as? String == "idfv", "\(notChosen)")
        #expect(((notChosen["claims"] as? [[String: Any]])?.first?["outcome"] as? String)?.hasPrefix("not chosen") == true, "\(notChosen)")
        #expect(try app.queryOne("SELECT matched_factors FROM installs WHERE id = ?", linked) { $0.string(0) } == #"["idfv"]"#)
        let data = try app.client("attribution-data", body("attribution-data", token: projectToken, instance: "D-1"))
        #expect((data.json?["data"] as? [String: Any])?["attribution_source"] as? String == "INORGANIC")
    }

    @Test func tokensAreCheckedAndKeptOnlyWhereWantedAndErasedWithTheInstall() throws {
        let fake = try FakeAdServices()
        let app = try TestApp.appleAds(fake)
        let (projectID, projectToken) = try app.linkrunnerProject()
        app.startOutbox()
        // Not base64, too long, not a string: ignored, the init answered as ever.
        for (index, token) in ["tok==", "not base64!", String(repeating: "QUFB", count: 1025)].enumerated() {
            #expect(try app.initWithToken(token, projectToken: projectToken, instance: "T-\(index)").status == 200)
        }
        let typed = body("init", token: projectToken, instance: "T-typed").replacingOccurrences(of: #""tok==""#, with: "42")
        #expect(try app.client("init", typed).status == 200)
        #expect(try app.count("SELECT count(*) FROM apple_ads_claims") == 0)

        // Apple's developer-mode answer: recorded, flagged as test data.
        let developer = adServicesToken("developer")
        fake.script(
            developer,
            [
                FakeAdServices.attributed(
                    campaign: 1234567890, adGroup: 1234567890, keyword: 12323222, ad: 1234567890,
                    clickDate: FakeAdServices.minuteDate(Date().addingTimeInterval(-60)))
            ])
        #expect(try app.initWithToken(developer, projectToken: projectToken, instance: "T-dev").status == 200)
        let devInstall = try app.installID(instance: "T-dev")
        #expect(try app.waitForClaim(devInstall) == "attributed")
        #expect(try app.claimStatus(devInstall)?.test == true)

        // Erasure takes the claim with the install.
        #expect(try app.request("DELETE", "/admin/v1/projects/\(projectID)/installs/\(devInstall)").status == 204)
        #expect(try app.count("SELECT count(*) FROM apple_ads_claims") == 0)

        // A project that turns Apple Ads off keeps and sends nothing.
        #expect(try app.request("PATCH", "/admin/v1/projects/\(projectID)", json: #"{"apple_ads":false}"#).json?["apple_ads"] as? Bool == false)
        #expect(try app.initWithToken(adServicesToken("off"), projectToken: projectToken, instance: "T-off").status == 200)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM apple_ads_claims") == 0)
        // The erased install's exchange went with it; the project with Apple Ads off made none.
        #expect(
            try app.count("SELECT count(*) FROM outbox_new WHERE kind = 'apple_ads'")
                + (try app.count("SELECT count(*) FROM outbox_jobs WHERE kind = 'apple_ads'")) == 0)
    }
}

extension TestApp {
    /// The only project's id.
    func installProject() throws -> String {
        try #require(try queryOne("SELECT id FROM projects ORDER BY created_at LIMIT 1") { $0.string(0) })
    }
}
