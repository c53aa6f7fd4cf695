import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@testable import App
@_spi(StoreInternals) @testable import Store

/// What the LinkForty iOS SDK does with the install answer, on every launch: `initialize()` posts
/// the install, caches `deepLinkData` (only when present) for `getInstallData()`, and calls
/// `onDeferredDeepLink` whenever the answer is attributed with `deepLinkData`. The deferred deep
/// link must reach the app once per install.
@Suite struct LinkFortyLaunchTests {
    static let idfv = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
    static let network = "198.51.100.23"

    static func launchBody(deviceID: String? = idfv, platform: String = "iOS") -> String {
        var body =
            #"{"userAgent":"Shop/2.1 iOS/17.4.1","timezone":"Europe/Paris","language":"fr_FR","screenWidth":1170,"screenHeight":2532,"platform":"\#(platform)","platformVersion":"17.4.1","appVersion":"2.1","sdkName":"ios","sdkVersion":"1.1.3""#
        if let deviceID { body += #","deviceId":"\#(deviceID)""# }
        return body + "}"
    }

    /// What the SDK does with one answer: the callback fires, the cache is replaced, or neither.
    struct SDKState {
        var cached: [String: Any]?
        var deferredCallbacks = 0

        mutating func initialize(with answer: [String: Any]) {
            let deepLink = answer["deepLinkData"] as? [String: Any]
            if let deepLink { cached = deepLink }
            if answer["attributed"] as? Bool == true, deepLink != nil { deferredCallbacks += 1 }
        }
    }

    @Test func theDeferredDeepLinkReachesTheAppOnceAndTheCacheKeepsIt() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        _ = try app.clickWithBeacon(ip: Self.network)
        try app.settle()
        var sdk = SDKState()
        func launch() throws -> [String: Any] {
            let answer = try #require(try app.install(ip: Self.network, key: key, body: Self.launchBody()).json)
            sdk.initialize(with: answer)
            return answer
        }
        let first = try launch()
        #expect(first["attributed"] as? Bool == true)
        #expect((first["deepLinkData"] as? [String: Any])?["shortCode"] as? String == "summer")
        // A retry of a report whose answer was lost (seconds later) still carries the link.
        _ = try app.advanceClock(projectID, seconds: 5)
        let retried = try launch()
        #expect(retried["installId"] as? String == first["installId"] as? String)
        #expect(retried["deepLinkData"] is [String: Any])
        // Later launches: the same install, still attributed, no deep link to deliver again.
        for _ in 0..<3 {
            _ = try app.advanceClock(projectID, seconds: 600)
            let later = try launch()
            #expect(later["installId"] as? String == first["installId"] as? String)
            #expect(later["attributed"] as? Bool == true && later["confidenceScore"] as? Double == 85)
            #expect(later["deepLinkData"] is NSNull)
        }
        #expect(sdk.deferredCallbacks == 2, "the first launch, and the retry of its lost answer")
        #expect(sdk.cached?["shortCode"] as? String == "summer", "getInstallData() still has the link")
    }

    @Test func aRelaunchWithinAMinuteOrAnotherFamilysInstallGetsNoSecondDeepLink() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink(testMode: true)
        _ = try app.clickWithBeacon(ip: Self.network)
        try app.settle()
        var sdk = SDKState()
        sdk.initialize(with: try #require(try app.install(ip: Self.network, key: key, body: Self.launchBody()).json))
        // The app relaunched 30 s later: the same install, no second onDeferredDeepLink.
        _ = try app.advanceClock(projectID, seconds: 30)
        let relaunch = try #require(try app.install(ip: Self.network, key: key, body: Self.launchBody()).json)
        sdk.initialize(with: relaunch)
        #expect(relaunch["deepLinkData"] is NSNull && sdk.deferredCallbacks == 1, "\(relaunch)")

        // Another phone: Linkrunner's SDK creates the install, then LinkForty's reports it a second later.
        let token = "lr-token-0123456789abcdef"
        try app.services.app.projects.setToken(projectID: projectID, token: token)
        _ = try app.clickWithBeacon(ip: "198.51.100.80")
        try app.settle()
        let idfv = "0C1D2E3F-4A5B-4C6D-8E9F-A0B1C2D3E4F5"
        let lrBody = body("init", token: token).replacingOccurrences(of: "6D92078A-8246-4BA4-AE5B-76104861E7DC", with: idfv)
        let created = try #require(try app.client("init", lrBody).json?["data"] as? [String: Any])
        #expect(created["deeplink"] is String, "Linkrunner's init gives the deep link: \(created)")
        _ = try app.advanceClock(projectID, seconds: 1)
        let joined = try #require(try app.install(ip: "198.51.100.80", key: key, body: Self.launchBody(deviceID: idfv)).json)
        #expect(joined["installId"] as? String == created["install_id"] as? String)
        #expect(joined["deepLinkData"] is NSNull, "the other family's install is no LinkForty retry: \(joined)")
    }

    @Test func aLinkFortyDeviceIDShapedLikeTheIDFVIsOneInstallWithLinkrunnerAndWarpLink() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, key, _) = try app.projectWithLink()
        let token = "lr-token-0123456789abcdef"
        try app.services.app.projects.setToken(projectID: projectID, token: token)
        let warpLinkKey = try app.warpLinkKey(projectID)
        let installID = try #require(try app.install(ip: Self.network, key: key, body: Self.launchBody()).json?["installId"] as? String)
        #expect(try app.queryOne("SELECT idfv, advertising_id FROM installs") { [$0.optionalString(0), $0.optionalString(1)] } == [Self.idfv, nil])

        // The same phone's Linkrunner client (its device_data.idfv) and WarpLink SDK (device_id).
        #expect(try app.client("init", body("init", token: token), ip: "203.0.113.9").status == 200)
        let matched = try app.warpLink(
            "POST", "/attribution/match", key: warpLinkKey,
            json: """
                {"accept_language":"fr-FR","screen_width":390,"screen_height":844,"timezone_offset":-60,"user_agent":"WarpLink-iOS/0.1.0",
                 "platform":"ios","fingerprint_version":"enriched","sdk_version":"0.1.0","device_id":"\(Self.idfv)"}
                """, ip: "203.0.113.10")
        #expect(matched.json?["install_id"] as? String == installID)
        #expect(try app.count("SELECT count(*) FROM installs") == 1)

        // On Android, and for a deviceId not shaped like an IDFV, it stays an advertising id.
        _ = try app.install(ip: "203.0.113.77", key: key, body: Self.launchBody(deviceID: "gaid-not-a-uuid"))
        _ = try app.install(
            ip: "203.0.113.78", key: key, body: Self.launchBody(deviceID: "38400000-8cf0-11bd-b23e-10b96e40000d", platform: "Android"))
        #expect(
            try app.count(
                "SELECT count(*) FROM installs WHERE advertising_id IN ('gaid-not-a-uuid', '38400000-8cf0-11bd-b23e-10b96e40000d') AND idfv IS NULL")
                == 2)
    }
}
