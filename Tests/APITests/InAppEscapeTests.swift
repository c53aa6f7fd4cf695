import Foundation
import TestSupport
import Testing

/// Taps inside social apps' browsers, which open neither universal links nor app links: Android
/// hands them to Chrome with an intent URL, iOS shows the way to Safari; the click is recorded
/// once, in the webview, with its UTM, and the browser's request follows on without another.
@Suite struct InAppEscapeTests {
    /// One User-Agent string of each app's browser, iOS and Android, in the shapes the apps send
    /// (their own tokens after the system browser's).
    static let agents: [(app: String, ios: String, android: String)] = [
        (
            "Instagram",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.1.1.28.108 (iPhone14,5; iOS 17_1_2; en_US; en; scale=3.00; 1170x2532; 537288532)",
            "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/UQ1A.240205.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0.6261.105 Mobile Safari/537.36 Instagram 320.0.0.42.101 Android (34/14; 420dpi; 1080x2400; Google/google; Pixel 8; shiba; shiba; en_US; 577210397)"
        ),
        (
            "Facebook",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/449.0.0.40.106;FBBV/563839214;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.3;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]",
            "Mozilla/5.0 (Linux; Android 13; SM-S911B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/121.0.6167.178 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/450.0.0.39.109;]"
        ),
        (
            "Messenger",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/MessengerForiOS;FBAV/445.0.0.33.112;FBBV/556573021;FBDV/iPhone14,2;FBMD/iPhone;FBSN/iOS;FBSV/17.2;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/5]",
            "Mozilla/5.0 (Linux; Android 13; Pixel 7 Build/TQ3A.230901.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.210 Mobile Safari/537.36 [FB_IAB/Orca-Android;FBAV/440.0.0.29.109;]"
        ),
        (
            "TikTok",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_33.9.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US",
            "Mozilla/5.0 (Linux; Android 12; SM-A525F Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.163 Mobile Safari/537.36 trill_330303 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/33.3.3 ByteLocale/en BytedanceWebview/d8a21c6"
        ),
        (
            "LinkedIn",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.3946",
            "Mozilla/5.0 (Linux; Android 14; Pixel 7a Build/UQ1A.240205.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0.6261.64 Mobile Safari/537.36 [LinkedInApp]/4.1.919"
        ),
        (
            "X",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_3_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Twitter for iPhone/10.30",
            "Mozilla/5.0 (Linux; Android 14; Pixel 8 Pro Build/UD1A.230803.041; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/118.0.5993.111 Mobile Safari/537.36 TwitterAndroid"
        ),
        (
            "Snapchat",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.70.0.35 (like Safari/8617.2.4.10.8, panda)",
            "Mozilla/5.0 (Linux; Android 13; SM-G991B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.43 Mobile Safari/537.36 Snapchat/12.68.0.44 (SM-G991B; Android 13#G991BXXU9EWK1#33; gzip; )"
        ),
        (
            "Pinterest",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]",
            "Mozilla/5.0 (Linux; Android 13; moto g(60) Build/T1RDS33.116-33-12; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.144 Mobile Safari/537.36 [Pinterest/Android]"
        ),
        (
            "LINE",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/13.21.0",
            "Mozilla/5.0 (Linux; Android 13; SO-51C Build/61.2.B.0.179; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.163 Mobile Safari/537.36 Line/13.20.1/IAB"
        ),
        (
            "WeChat",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.44(0x18002c2f) NetType/WIFI Language/zh_CN",
            "Mozilla/5.0 (Linux; Android 12; V2049A Build/SP1A.210812.003; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/107.0.5304.141 Mobile Safari/537.36 XWEB/5317 MMWEBSDK/20230701 MMWEBID/2247 MicroMessenger/8.0.40.2420(0x28002837) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64"
        ),
        (
            "Telegram",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Telegram-iOS/10.6",
            "Mozilla/5.0 (Linux; Android 14; Pixel 6 Build/UQ1A.240205.004; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/121.0.6167.178 Mobile Safari/537.36 Telegram-Android/10.8.1 (Google Pixel 6; Android 14; SDK 34; HIGH)"
        ),
    ]

    @Test func eachInAppBrowserIsLedOutAndTheClickRecordedOnce() throws {
        let app = try TestApp()
        _ = try app.projectWithLink()
        var expectedClicks = 0
        for agent in Self.agents {
            // Android: Chrome, by an intent URL that keeps the query and falls back to the same link.
            let android = try app.request("GET", "/summer?utm_campaign=fall", adminKey: nil, headers: ["User-Agent": agent.android])
            let intent = try #require(android.header("Location"), "\(agent.app) Android: \(android.status)")
            #expect(android.header("X-Click-Id").map { intent.contains("_esc=\($0)") } == true, "every answer names its click")
            #expect(
                android.status == 302 && intent.hasPrefix("intent://test/summer?utm_campaign=fall&_esc=")
                    && intent.contains(
                        "#Intent;scheme=http;package=com.android.chrome;S.browser_fallback_url=http%3A%2F%2Ftest%2Fsummer%3Futm_campaign%3Dfall%26_esc%3D"
                    )
                    && intent.hasSuffix(";end"),
                "\(agent.app) Android: \(intent)")
            // iOS: the way to Safari, the link to copy, and a way on from here.
            let iPhone = try app.request("GET", "/summer?utm_campaign=fall", adminKey: nil, headers: ["User-Agent": agent.ios])
            #expect(iPhone.status == 200 && iPhone.bodyText.contains("x-safari-http://test/summer?utm_campaign=fall&amp;_esc="), "\(agent.app) iOS")
            #expect(iPhone.header("Content-Security-Policy")?.hasPrefix("default-src 'none'") == true, "the page loads and runs nothing")
            #expect(
                iPhone.bodyText.contains("\(agent.app)&#39;s browser") || iPhone.bodyText.contains("\(agent.app)'s browser"),
                "\(agent.app) iOS: \(iPhone.bodyText.prefix(600))")
            expectedClicks += 2
            try app.settle()
            #expect(try app.count("SELECT count(*) FROM clicks") == expectedClicks, "one click each, after \(agent.app)")
        }
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks WHERE utm_campaign = 'fall'") == expectedClicks, "the UTM is kept")
    }

    @Test func theBrowsersRequestFollowsTheLinkWithoutASecondClick() throws {
        let app = try TestApp()
        _ = try app.projectWithLink()
        let instagram = Self.agents[0]
        let escaped = try #require(try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": instagram.android]).header("Location"))
        let clickID = try #require(escaped.range(of: "_esc=").map { String(escaped[$0.upperBound...].prefix { $0 != "#" && $0 != "&" }) })
        // Chrome opens it: the store, with the click id the webview's click has.
        let chrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
        let followed = try app.request("GET", "/summer?_esc=\(clickID)", adminKey: nil, headers: ["User-Agent": chrome])
        #expect(followed.status == 200 && followed.header("X-Click-Id") == clickID, "\(followed.status)")
        #expect(followed.bodyText.contains("play.google.com"))
        // Back in the webview (no Chrome): the same, not another escape.
        let fallback = try app.request("GET", "/summer?_esc=\(clickID)", adminKey: nil, headers: ["User-Agent": instagram.android])
        #expect(fallback.status == 200 && fallback.bodyText.contains("play.google.com"))
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks") == 1)
    }

    @Test func anIDThisServerDidNotIssueForTheLinkIsATapOfItsOwn() throws {
        let app = try TestApp()
        let (projectID, _, _) = try app.projectWithLink()
        #expect(
            try app.request("POST", "/admin/v1/projects/\(projectID)/links", json: #"{"short_code":"other","web_url":"https://shop.example.com/o"}"#)
                .status == 201)
        let chrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
        let forged = "0123456789abcdef0123456789abcdef"
        let tap = try app.request("GET", "/summer?_esc=\(forged)", adminKey: nil, headers: ["User-Agent": chrome])
        #expect(tap.status == 200 && tap.header("X-Click-Id") != forged && !tap.bodyText.contains(forged), "\(tap.bodyText.prefix(300))")
        // Another link's click is no continuation of this one either.
        let escaped = try #require(
            try app.request("GET", "/other", adminKey: nil, headers: ["User-Agent": Self.agents[0].android]).header("Location"))
        let otherClick = try #require(escaped.range(of: "_esc=").map { String(escaped[$0.upperBound...].prefix { $0 != "#" && $0 != "&" }) })
        let crossed = try app.request("GET", "/summer?_esc=\(otherClick)", adminKey: nil, headers: ["User-Agent": chrome])
        #expect(crossed.header("X-Click-Id") != otherClick)
        try app.settle()
        #expect(try app.count("SELECT count(*) FROM clicks") == 3, "each forged continuation is a recorded tap")
    }

    @Test func theEscapeCanBeTurnedOffPerProjectAndBackOnPerLink() throws {
        let app = try TestApp()
        let (project, _, link) = try app.projectWithLink()
        let instagram = Self.agents[0].android
        #expect(
            try app.request("PATCH", "/admin/v1/projects/\(project)", json: #"{"in_app_escape": false}"#).json?["in_app_escape"] as? Bool == false)
        let stays = try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": instagram])
        #expect(stays.status == 200 && stays.bodyText.contains("play.google.com"), "the project's links stay in the webview: \(stays.status)")
        let id = try #require(link["id"] as? String)
        #expect(
            try app.request("PATCH", "/admin/v1/projects/\(project)/links/\(id)", json: #"{"in_app_escape": true}"#).json?["in_app_escape"] as? Bool
                == true)
        #expect(
            try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": instagram]).header("Location")?.hasPrefix("intent://") == true)
        #expect(
            try app.request("PATCH", "/admin/v1/projects/\(project)/links/\(id)", json: #"{"in_app_escape": null}"#).json?["in_app_escape"] == nil)
        #expect(try app.request("GET", "/summer", adminKey: nil, headers: ["User-Agent": instagram]).status == 200)
    }
}
