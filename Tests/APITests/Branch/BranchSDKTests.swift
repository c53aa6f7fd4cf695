import Foundation
import StoreContracts
import TestSupport
import Testing

/// The bodies Branch's iOS SDK builds (`BNCRequestFactory`, ios-branch-deep-linking-attribution
/// 3.x: `dataForInstallWithURLString`, `dataForOpenWithURLString`, `dataForEventWithEventDictionary`,
/// `dataForShortURLWithLinkDataDictionary`), with the keys and value types it sends.
enum BranchBodies {
    static let idfv = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
    static let webKitAgent = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"

    /// `/v1/install` and `/v1/open`: the v1 device dictionary at the top level, the request's id
    /// and time, the opened URL when there is one, the session's tokens on an open.
    static func session(
        key: String, idfv: String = idfv, url: String? = nil, tokens: String? = nil, identity: String? = nil, requestID: String = UUID().uuidString
    ) -> String {
        var body =
            #"{"branch_key":"\#(key)","branch_sdk_request_unique_id":"\#(requestID)-1733200000000","branch_sdk_request_timestamp":1733200000000,"#
            + #""metadata":{"skan_time_window":"0.000000"},"sdk":"ios3.6.0","hardware_id":"\#(idfv)","hardware_id_type":"vendor_id","#
            + #""is_hardware_id_real":true,"ios_vendor_id":"\#(idfv)","opted_in_status":"not_determined","first_opt_in":false,"os":"iOS","#
            + #""os_version":"17.4.1","build":"21E236","environment":"FULL_APP","locale":"fr_FR","country":"FR","language":"fr","brand":"Apple","#
            + #""model":"iPhone15,2","cpu_type":"16777228","screen_dpi":3,"screen_height":2532,"screen_width":1170,"connection_type":"wifi","#
            + #""user_agent":"\#(webKitAgent)","app_version":"2.1","ios_bundle_id":"com.example.shop","ios_team_id":"ABCDE12345","#
            + #""uri_scheme":"shop","debug":false,"lastest_update_time":1733100000000,"latest_install_time":1733100000000,"#
            + #""first_install_time":1733100000000,"update":0,"dma_eea":true,"dma_ad_personalization":false,"dma_ad_user_data":true"#
        if let url { body += #","universal_link_url":"\#(url)""# }
        if let tokens { body += #","randomized_device_token":"\#(tokens)","randomized_bundle_token":"\#(tokens)""# }
        if let identity { body += #","identity":"\#(identity)""# }
        return body + "}"
    }

    /// Android 5.x's `/v1/install` (`ServerRequestRegisterInstall`, `DeviceInfo.updateRequestWithV1Params`):
    /// the Android id, `os_version` as the API level beside `os_version_android`, pixels and dpi,
    /// and the Play Install Referrer as it was read.
    /// Play's times are the request's: the tap just now, the install begun a minute later (an
    /// install that began before the tap was made would be click injection).
    static func androidInstall(key: String, referrer: String) -> String {
        let now = Int(Date().timeIntervalSince1970)
        return #"{"branch_key":"\#(key)","branch_sdk_request_unique_id":"A-1","hardware_id":"8f2b6c1d9e0a4b7c","is_hardware_id_real":true,"#
            + #""brand":"Google","model":"Pixel 8","screen_dpi":420,"screen_height":2400,"screen_width":1080,"wifi":true,"ui_mode":"UI_MODE_TYPE_NORMAL","#
            + #""os":"Android","os_version":34,"os_version_android":"14","country":"FR","language":"fr","local_ip":"192.168.1.20","#
            + #""cpu_type":"aarch64","build":"AP1A.240405.002","locale":"fr_FR","connection_type":"wifi","app_version":"2.1","#
            + #""install_referrer_extras":"\#(referrer)","clicked_referrer_ts":\#(now),"install_begin_ts":\#(now + 60),"#
            + #""debug":false,"update":0,"first_install_time":1733199200000,"latest_install_time":1733199200000,"sdk":"android5.12.0"}"#
    }

    /// `/v2/event/standard`: `BranchEvent`'s dictionary and the v2 `user_data`.
    static func purchase(key: String, token: String, requestID: String, customData: String = #"{"plan":"pro"}"#) -> String {
        #"{"branch_key":"\#(key)","branch_sdk_request_unique_id":"\#(requestID)","branch_sdk_request_timestamp":1733200000000,"name":"PURCHASE","#
            + #""event_data":{"revenue":9.99,"currency":"EUR","transaction_id":"tx-1","affiliation":"app"},"custom_data":\#(customData),"#
            + #""content_items":[{"$canonical_identifier":"item/7","$sku":"pro","$price":9.99,"$quantity":1}],"#
            + #""user_data":{"idfv":"\#(idfv)","os":"iOS","os_version":"17.4.1","model":"iPhone15,2","randomized_device_token":"\#(token)","#
            + #""developer_identity":"user-9","app_version":"2.1","sdk":"ios","sdk_version":"3.6.0","dma_eea":true,"dma_ad_user_data":true}}"#
    }
}

extension TestApp {
    /// A Branch-shaped key for the project, issued through the admin API.
    func branchKey(_ projectID: String, mode: String = "live") throws -> String {
        let issued = try request("POST", "/admin/v1/projects/\(projectID)/api-keys", json: #"{"format":"branch","mode":"\#(mode)"}"#)
        guard issued.status == 201, let key = issued.json?["key"] as? String else { throw ConnectError(code: Int32(issued.status)) }
        return key
    }

    func branch(_ path: String, _ body: String, ip: String = "198.51.100.61") throws -> TestResponse {
        try request(
            "POST", path, json: body, adminKey: nil,
            headers: ["User-Agent": "Shop/2.1 CFNetwork/1494.0.7 Darwin/23.4.0", "X-Forwarded-For": ip])
    }
}

/// A session answer as the iOS SDK reads it (`BranchOpenRequest processResponse`): the tokens as
/// strings and `data` a JSON string, parsed into a dictionary.
private func sessionData(_ response: TestResponse) throws -> (token: String, data: [String: Any]) {
    #expect(response.status == 200, "\(response.bodyText)")
    let json = try #require(response.json, "\(response.bodyText)")
    let token = try #require(json["randomized_bundle_token"] as? String)
    #expect(json["randomized_device_token"] as? String == token && (json["session_id"] as? String)?.isEmpty == false)
    let text = try #require(json["data"] as? String, "data is a JSON string: \(json)")
    let data = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    return (token, data)
}

/// Branch's error shape, with the status as its code.
private func isBranchError(_ response: TestResponse, status: Int, saying text: String) -> Bool {
    guard response.status == status, let error = response.json?["error"] as? [String: Any] else { return false }
    return error["code"] as? Int == status && (error["message"] as? String)?.contains(text) == true
}

@Suite struct BranchSDKTests {
    @Test func aTapThenTheFirstSessionGivesTheLinksDataOnceAndLaterOpensDoNot() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, link) = try app.projectWithLink()
        let key = try app.branchKey(projectID)
        #expect(key.hasPrefix("key_live_") && key.count == 41)
        _ = try app.clickWithBeacon(ip: "198.51.100.61")

        let (token, first) = try sessionData(try app.branch("/v1/install", BranchBodies.session(key: key)))
        #expect(first["+clicked_branch_link"] as? Bool == true && first["+is_first_session"] as? Bool == true, "\(first)")
        #expect(first["$deeplink_path"] as? String == "product/42" && first["~id"] as? String == link["id"] as? String, "\(first)")
        #expect(first["~channel"] as? String == "mail" && first["~campaign"] as? String == "summer", "\(first)")
        #expect((first["~referring_link"] as? String)?.hasSuffix("/summer") == true && first["+click_timestamp"] is Int, "\(first)")
        #expect(first["+match_guaranteed"] as? Bool == false, "a network match is not guaranteed")
        #expect(try app.count("SELECT count(*) FROM installs WHERE attributed AND api = 'branch'") == 1)
        let explain = try app.request("GET", "/admin/v1/projects/\(projectID)/installs/\(token)/explain")
        #expect(explain.status == 200, "the token is the install's id: the explain view shows why")

        // The next start, after `setIdentity` (which the SDK sends with each session): the same
        // install, now the user's, and no link.
        let (again, later) = try sessionData(try app.branch("/v1/open", BranchBodies.session(key: key, tokens: token, identity: "user-42")))
        #expect(try app.count("SELECT count(*) FROM installs WHERE user_id = 'user-42'") == 1)
        #expect(again == token && later["+clicked_branch_link"] as? Bool == false && later["+is_first_session"] as? Bool == false, "\(later)")
        // Opened through the link: its data, and the open is the link's click.
        let clicks = try app.count("SELECT count(*) FROM clicks")
        let (_, opened) = try sessionData(
            try app.branch("/v1/open", BranchBodies.session(key: key, url: "http://test/summer?utm_source=push", tokens: token)))
        #expect(opened["+clicked_branch_link"] as? Bool == true && opened["+match_guaranteed"] as? Bool == true, "\(opened)")
        #expect(opened["$deeplink_path"] as? String == "product/42" && opened["+is_first_session"] as? Bool == false)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks") == clicks + 1)

        // Another phone, never tapped: an organic first session.
        let (organicToken, organic) = try sessionData(
            try app.branch(
                "/v1/install", BranchBodies.session(key: key, idfv: "0B1C2D3E-4F50-4A6B-8C7D-8E9FA0B1C2D3", identity: "user-43"), ip: "203.0.113.9"))
        #expect(try app.count("SELECT count(*) FROM installs WHERE user_id = 'user-43' AND id = '\(organicToken)'") == 1)
        #expect(organic["+clicked_branch_link"] as? Bool == false && organic["+is_first_session"] as? Bool == true, "\(organic)")
        #expect(try app.count("SELECT count(*) FROM installs") == 2)
    }

    @Test func eventsLinksAndIdentityGoThroughTheSessionsTokenAndMistakesAreBranchErrors() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        let key = try app.branchKey(projectID)
        let (token, _) = try sessionData(try app.branch("/v1/install", BranchBodies.session(key: key)))

        // A purchase, sent twice as a retry does: one event with its revenue.
        let purchase = BranchBodies.purchase(key: key, token: token, requestID: "REQ-1")
        for _ in 0..<2 {
            let sent = try app.branch("/v2/event/standard", purchase)
            #expect(sent.status == 200 && sent.json?["branch_view_enabled"] as? Bool == false, "\(sent.bodyText)")
        }
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM events WHERE name = 'PURCHASE' AND revenue = 9.99 AND currency = 'EUR'") == 1)
        #expect(try app.branch("/v2/event/custom", BranchBodies.purchase(key: key, token: token, requestID: "REQ-2")).status == 200)

        // A short link for sharing, on the project's host, counted like any link; read back.
        let created = try app.branch(
            "/v1/url",
            #"{"branch_key":"\#(key)","alias":"friend-7","channel":"share","feature":"referral","tags":["a","b"],"type":0,"#
                + #""data":{"$deeplink_path":"product/7","$og_title":"Seven","promo":"x","count":3},"randomized_device_token":"\#(token)"}"#)
        let url = try #require(created.json?["url"] as? String, "\(created.bodyText)")
        #expect(created.status == 200 && url.hasSuffix("/friend-7"), "\(url)")
        let tap = try app.request("GET", "/friend-7", adminKey: nil, headers: ["User-Agent": safariIPhone])
        #expect(tap.status < 400 && tap.header("X-Click-Id") != nil, "\(tap.status)")
        let read = try app.request(
            "GET", "/v1/url?url=\(url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&branch_key=\(key)", adminKey: nil)
        let data = try #require(read.json?["data"] as? [String: Any], "\(read.bodyText)")
        #expect(data["promo"] as? String == "x" && data["count"] as? String == "3" && data["$og_title"] as? String == "Seven", "\(data)")
        #expect(read.json?["channel"] as? String == "share" && read.json?["feature"] as? String == "referral", "\(read.bodyText)")
        #expect(try app.branch("/v1/url", #"{"branch_key":"\#(key)","alias":"friend-7"}"#).status == 409)

        // setIdentity and logout.
        let profile = try app.branch("/v1/profile", #"{"branch_key":"\#(key)","identity":"user-9","randomized_bundle_token":"\#(token)"}"#)
        #expect(profile.status == 200 && profile.json?["randomized_bundle_token"] as? String == token, "\(profile.bodyText)")
        #expect(try app.count("SELECT count(*) FROM installs WHERE user_id = 'user-9'") == 1)
        #expect(try app.branch("/v1/logout", #"{"branch_key":"\#(key)","randomized_bundle_token":"\#(token)"}"#).status == 200)
        #expect(try app.branch("/v1/cpid/latd", #"{"branch_key":"\#(key)","attribution_window":30}"#).status == 200)

        // Refusals in Branch's shape, and nothing stored.
        let links = try app.count("SELECT count(*) FROM links")
        let events = try app.count("SELECT count(*) FROM events")
        #expect(
            isBranchError(
                try app.branch("/v1/install", BranchBodies.session(key: "key_live_" + String(repeating: "x", count: 32))), status: 401,
                saying: "branch_key"))
        #expect(isBranchError(try app.branch("/v1/open", BranchBodies.session(key: "wl_live_abc")), status: 401, saying: "Branch's shape"))
        #expect(isBranchError(try app.branch("/v1/url", #"{"branch_key":"\#(key)","data":"not json"}"#), status: 422, saying: "data"))
        let huge = #"{"blob":""# + String(repeating: "x", count: 1_000_000) + #""}"#
        let tooBig = try app.branch("/v2/event/custom", BranchBodies.purchase(key: key, token: token, requestID: "REQ-3", customData: huge))
        #expect((400..<500).contains(tooBig.status) && tooBig.json?["error"] is [String: Any], "\(tooBig.status) \(tooBig.bodyText.prefix(200))")
        #expect(
            isBranchError(
                try app.branch("/v2/event/standard", BranchBodies.purchase(key: key, token: "nobody", requestID: "REQ-4")), status: 404,
                saying: "nobody"))
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM links") == links)
        #expect(try app.count("SELECT count(*) FROM events") == events)
    }

    /// An Android tap goes to Play with our click id in the referrer; the SDK's first session
    /// brings it back, and the match is deterministic (`+match_guaranteed`).
    @Test func anAndroidFirstSessionWithThePlayReferrerIsAGuaranteedMatch() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        let key = try app.branchKey(projectID)
        let chrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
        let tap = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": chrome, "X-Forwarded-For": "198.51.100.70"])
        let clickID = try #require(tap.header("X-Click-Id"))
        // The page's Play Store URL carries the referrer, percent-encoded; Play hands the app its text.
        let page = String(decoding: tap.body, as: UTF8.self)
        let encoded = try #require(page.range(of: #"referrer=[^"&]+"#, options: .regularExpression).map { page[$0].dropFirst(9) }, "\(page)")
        let referrer = try #require(String(encoded).removingPercentEncoding)
        #expect(referrer.contains("click_id=\(clickID)"), "\(referrer)")
        let (_, data) = try sessionData(
            try app.branch("/v1/install", BranchBodies.androidInstall(key: key, referrer: referrer), ip: "203.0.113.77"))
        #expect(data["+clicked_branch_link"] as? Bool == true && data["+match_guaranteed"] as? Bool == true, "\(data)")
        #expect(data["~campaign"] as? String == "summer", "\(data)")
    }

    /// A Branch long link on the project's domain, `/?%24deeplink_path=…&channel=…&key=…`: its
    /// first tap makes it a link of its own, and the first session gets its data; a URL in it
    /// that the project does not vouch for is refused.
    @Test func aLongLinkOnTheProjectDomainIsALinkAndItsDataReachesTheFirstSession() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        #expect(try app.request("POST", "/admin/v1/projects/\(projectID)/domains", json: #"{"domain":"go.shop.example"}"#).status == 201)
        let key = try app.branchKey(projectID)
        func tap(_ query: String, ip: String = "198.51.100.90") throws -> TestResponse {
            try app.request(
                "GET", "/?\(query)", adminKey: nil, headers: ["User-Agent": safariIPhone, "X-Forwarded-For": ip], host: "go.shop.example")
        }
        let evil = try tap("%24fallback_url=https%3A%2F%2Fevil.example%2F&channel=email")
        #expect(evil.status == 422 && evil.bodyText.contains("$fallback_url"), "\(evil.status) \(evil.bodyText)")
        let query = "%24deeplink_path=product%2F7&channel=email&feature=newsletter&promo=S10&utm_medium=ignored"
        let first = try tap(query)
        #expect(first.status < 400 && first.header("X-Click-Id") != nil, "\(first.status) \(first.bodyText)")
        #expect(try tap(query, ip: "198.51.100.91").header("X-Click-Id") != nil)
        #expect(try app.count("SELECT count(*) FROM links WHERE short_code LIKE 'brl%' AND deep_link_path = 'product/7'") == 1)
        _ = try app.request(
            "POST", "/c/\(try #require(first.header("X-Click-Id")))",
            json: #"{"sw":390,"sh":844,"dpr":3,"tz":"Europe/Paris","tzo":-60,"langs":["fr-FR","fr"]}"#,
            adminKey: nil)

        let (_, data) = try sessionData(try app.branch("/v1/install", BranchBodies.session(key: key), ip: "198.51.100.90"))
        #expect(data["+clicked_branch_link"] as? Bool == true && data["$deeplink_path"] as? String == "product/7", "\(data)")
        #expect(data["promo"] as? String == "S10" && data["~channel"] as? String == "email" && data["~feature"] as? String == "newsletter", "\(data)")
    }
}
