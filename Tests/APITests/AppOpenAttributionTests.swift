import Attribution
import Foundation
import StoreContracts
import TestSupport
import Testing

@testable import API
@_spi(StoreInternals) @testable import Store

/// In-app opens (an installed app resolving a link) and what they may attribute, through each
/// family's own calls: phone A opens a link inside the app; phone C, which never tapped anything,
/// installs on the same network (a household, an office, a carrier NAT). A's open must not be
/// C's click. Found with the real SDKs: each of these was attributed at 0.85.
@Suite struct AppOpenAttributionTests {
    static let network = "198.51.100.44"

    @Test func aWarpLinkResolveInsideTheAppIsNoCandidateForAnotherPhonesInstall() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (projectID, _, _) = try app.projectWithLink()
        let key = try app.warpLinkKey(projectID)
        let opened = try app.warpLink(
            "GET", "/links/resolve/summer", key: key, ip: Self.network,
            headers: ["Accept-Language": "fr-FR,fr;q=0.9"])
        #expect(opened.status == 200)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE source = 'app'") == 1)
        // Phone C: another IDFV, another screen, New York (JavaScript's sign: minutes west).
        let phoneC = """
            {"accept_language":"fr-FR","screen_width":430,"screen_height":932,"timezone_offset":300,"user_agent":"WarpLink-iOS/0.1.0",
             "platform":"ios","fingerprint_version":"enriched","sdk_version":"0.1.0","device_id":"11111111-2222-4333-8444-555555555555"}
            """
        let other = try app.warpLink("POST", "/attribution/match", key: key, json: phoneC, ip: Self.network)
        #expect(other.status == 200)
        #expect(other.json?["matched"] as? Bool == false, "\(String(decoding: other.body, as: UTF8.self))")
        #expect(try app.count("SELECT count(*) FROM clicks WHERE claimed_at IS NOT NULL") == 0)
    }

    @Test func aLinkrunnerHandleDeeplinkNeverAttributesAnInstallWithAnotherIDFV() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, token) = try app.linkrunnerProject()
        #expect(try app.client("init", body("init", token: token, instance: "PHONE-A"), ip: Self.network).status == 200)
        let handled = try app.client(
            "handle-deeplink",
            body(
                "handle-deeplink", token: token, instance: "PHONE-A",
                extra: #","deeplink_url":"http://test/summer""#), ip: Self.network)
        #expect(handled.status == 200)
        try app.settle()
        // Phone C: the same model, language and zone as A (the seed device data), another IDFV.
        let otherIDFV = "0B1C2D3E-4F50-4617-8829-3A4B5C6D7E8F"
        let phoneC = body("init", token: token, instance: "PHONE-C").replacingOccurrences(of: "6D92078A-8246-4BA4-AE5B-76104861E7DC", with: otherIDFV)
        #expect(try app.client("init", phoneC, ip: Self.network).status == 200)
        let polled = try app.client("attribution-data", body("attribution-data", token: token, instance: "PHONE-C"), ip: Self.network)
        let data = try #require(polled.json?["data"] as? [String: Any])
        #expect(data["attribution_source"] as? String == "ORGANIC", "\(data)")
        #expect(try app.count("SELECT count(*) FROM installs WHERE install_instance_id = 'PHONE-C' AND attributed") == 0)
    }

    @Test func aLinkFortyResolveInsideTheAppIsNoCandidateForAnotherPhonesInstall() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, apiKey, _) = try app.projectWithLink()
        let resolved = try app.request(
            "GET", "/api/sdk/v1/resolve/summer?fp_tz=Europe%2FParis&fp_lang=fr_FR&fp_sw=1170&fp_sh=2532&fp_platform=iOS&fp_pv=17.4.1",
            adminKey: apiKey, headers: ["User-Agent": "Shop/2.1 CFNetwork/1490.0.4 Darwin/23.2.0", "X-Forwarded-For": Self.network])
        #expect(resolved.status == 200)
        try app.settle()
        // Another iPhone of the same model, zone and language on the network: alike in everything the server sees.
        let install = try app.request(
            "POST", "/api/sdk/v1/install",
            json: """
                {"userAgent":"Shop/2.1 iOS/17.4.1","timezone":"Europe/Paris","language":"fr_FR","screenWidth":1170,"screenHeight":2532,
                 "platform":"iOS","platformVersion":"17.4.1","appVersion":"2.1","sdkName":"ios","sdkVersion":"1.2.0"}
                """, adminKey: apiKey, headers: ["X-Forwarded-For": Self.network])
        #expect(install.status == 200)
        #expect(install.json?["attributed"] as? Bool == false, "\(String(decoding: install.body, as: UTF8.self))")
    }

    /// A plain redirect (no page script: User-Agent and Accept-Language only) agrees with any
    /// iPhone of the same OS version on the network: never the top band.
    @Test func aClickWithoutScreenOrTimeZoneStaysBelowTheTopBand() throws {
        let app = try TestApp(trustedProxies: ["127.0.0.1"])
        let (_, apiKey, _) = try app.projectWithLink()
        let click = try app.request(
            "GET", "/summer", adminKey: nil,
            headers: [
                "User-Agent":
                    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
                "X-Forwarded-For": Self.network,
            ])
        #expect(click.status == 200 || click.status == 302)
        try app.settle()
        let install = try app.request(
            "POST", "/api/sdk/v1/install", json: #"{"userAgent":"Shop/1.0 iOS/17.4","platform":"iOS","platformVersion":"17.4"}"#,
            adminKey: apiKey, headers: ["X-Forwarded-For": Self.network])
        let json = try #require(install.json)
        #expect(json["attributed"] as? Bool == true)
        #expect(json["confidenceScore"] as? Double == 65)
        #expect(json["matchedFactors"] as? [String] == ["ip", "platform", "os_version"])
    }
}
