import Foundation
import TestSupport
import Testing

@testable import API

/// Every install's match explained, as recorded in its own transaction: which tier decided, the
/// candidates considered, each one's score, factors and why it won or lost.
@Suite struct ExplainTests {
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"

    func explain(_ app: TestApp, _ projectID: String, _ installID: String) throws -> [String: Any] {
        let answer = try app.request("GET", "/admin/v1/projects/\(projectID)/installs/\(installID)/explain")
        #expect(answer.status == 200, "\(answer.bodyText)")
        return try #require(answer.json)
    }

    @Test func aTapAnotherInstallClaimedEarlierIsNamedWithThatInstall() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink()
        let network = "198.51.100.24"
        let clickID = try app.clickWithBeacon(ip: network)
        try app.settle()
        func body(_ device: String) -> String {
            #"{"userAgent":"Shop/2.1 iOS/17.4.1","timezone":"Europe/Paris","language":"fr_FR","screenWidth":1170,"screenHeight":2532,"platform":"iOS","platformVersion":"17.4.1","deviceId":"\#(device)"}"#
        }
        let first = try #require(try app.install(ip: network, key: key, body: body("phone-one")).json?["installId"] as? String)
        // A second phone alike in every signal, later: the tap is taken, and its explanation says by whom.
        let second = try #require(try app.install(ip: network, key: key, body: body("phone-two")).json?["installId"] as? String)
        #expect(first != second)
        let explained = try explain(app, projectID, second)
        let earlier = try #require(explained["claimed_earlier"] as? [[String: Any]], "\(explained)")
        #expect(earlier.first?["click_id"] as? String == clickID && earlier.first?["install_id"] as? String == first, "\(explained)")
        #expect((try explain(app, projectID, first)["claimed_earlier"] as? [[String: Any]])?.isEmpty == true, "its own claim is no other install's")
    }

    @Test func aProbabilisticMatchListsTheWinnerAndWhyTheOthersLost() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink()
        let network = "198.51.100.23"
        #expect(try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": Self.android, "X-Forwarded-For": network]).status == 200)
        let warpLinkKey = try app.warpLinkKey(projectID)
        #expect(try app.warpLink("GET", "/links/resolve/summer", key: warpLinkKey, ip: network).status == 200)
        let clickID = try app.clickWithBeacon(ip: network)
        try app.settle()
        let installID = try #require(try app.install(ip: network, key: key).json?["installId"] as? String)

        let explained = try explain(app, projectID, installID)
        #expect(explained["recorded"] as? Bool == true)
        #expect(explained["decided_by"] as? String == "probabilistic")
        #expect(explained["min_confidence"] as? Double == 0.5 && explained["candidates_considered"] as? Int == 3)
        let candidates = try #require(explained["candidates"] as? [[String: Any]])
        let winner = try #require(candidates.first)
        #expect(winner["click_id"] as? String == clickID && winner["outcome"] as? String == "won")
        #expect(winner["score"] as? Double == 0.85 && winner["found_by"] as? String == "network")
        #expect((winner["factors"] as? [String])?.contains("screen") == true)
        let outcomes = candidates.dropFirst().compactMap { $0["outcome"] as? String }
        #expect(outcomes.contains("platform disagrees"), "\(outcomes)")
        #expect(outcomes.contains { $0.hasPrefix("an in-app open") }, "\(outcomes)")
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/installs/nope/explain").status == 404)
        // The install's page shows the same.
        let browser = DashboardClient(app)
        try browser.signInWithAdminKey()
        let page = try browser.get("/projects/\(projectID)/installs/\(installID)").bodyText
        #expect(page.contains("How it was matched") && page.contains("Decided by <b>probabilistic</b>") && page.contains("platform disagrees"))
        #expect(try app.request("GET", "/admin/v1/projects/\(projectID)/installs/\(installID)/explain", adminKey: nil).status == 401)
    }

    @Test func aDeterministicMatchNamesItsTierAndAnOldInstallSaysNothingWasRecorded() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, token) = try app.linkrunnerProject()
        #expect(
            try app.client("handle-deeplink", body("handle-deeplink", token: token, extra: #","deeplink_url":"http://test/summer""#)).status == 200)
        try app.settle()
        let initialized = try app.client("init", body("init", token: token, instance: "IID-2"), ip: "192.0.2.77")
        let installID = try #require((initialized.json?["data"] as? [String: Any])?["install_id"] as? String)
        let explained = try explain(app, projectID, installID)
        #expect(explained["decided_by"] as? String == "idfv" && explained["match_type"] as? String == "deterministic")
        let winner = try #require((explained["candidates"] as? [[String: Any]])?.first)
        #expect(winner["found_by"] as? String == "idfv" && winner["outcome"] as? String == "won" && winner["score"] as? Double == 1)

        // An install stored before explanations existed (before migration 0029) has none.
        #expect(try app.run("UPDATE installs SET explanation = NULL, created_at = 1 WHERE id = ?", installID) == 1)
        let old = try explain(app, projectID, installID)
        #expect(old["recorded"] as? Bool == false && old["match_type"] as? String == "deterministic")

        // An organic install that considered nothing stores nothing, and is explained as such.
        let organic = try app.client(
            "init",
            body("init", token: token, instance: "IID-3").replacingOccurrences(
                of: "6D92078A-8246-4BA4-AE5B-76104861E7DC",
                with: "11111111-2222-4333-8444-555555555555"), ip: "203.0.113.200")
        let organicID = try #require((organic.json?["data"] as? [String: Any])?["install_id"] as? String)
        #expect(try app.count("SELECT count(*) FROM installs WHERE id = '\(organicID)' AND explanation IS NULL") == 1)
        let nothing = try explain(app, projectID, organicID)
        #expect(nothing["recorded"] as? Bool == true && nothing["decided_by"] as? String == "none")
        #expect((nothing["candidates"] as? [Any])?.isEmpty == true && nothing["candidates_considered"] as? Int == 0)
    }
}
