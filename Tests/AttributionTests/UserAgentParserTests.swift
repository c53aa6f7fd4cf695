import Testing

@testable import Attribution

@Suite struct UserAgentParserTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        let agent: String?
        let platform: UserAgentInfo.Platform
        let version: String?
        let device: UserAgentInfo.DeviceClass?
        var inApp: String? = nil
        var testDescription: String { name }
    }

    /// Real User-Agent strings, as browsers, in-app browsers, crawlers and preview fetchers send them.
    static let rows: [Row] = [
        Row(
            name: "Safari on iPhone",
            agent:
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
            platform: .ios, version: "17.4.1", device: .iphone),
        Row(
            name: "Chrome on iPhone",
            agent:
                "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1",
            platform: .ios, version: "16.6", device: .iphone),
        Row(
            name: "Safari on iPad",
            agent: "Mozilla/5.0 (iPad; CPU OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
            platform: .ios, version: "17.2", device: .ipad),
        Row(
            name: "Instagram in-app on iPhone",
            agent:
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.1.1.28.108 (iPhone14,5; iOS 17_1_2; en_US; en; scale=3.00; 1170x2532; 537288532)",
            platform: .ios, version: "17.1.2", device: .iphone, inApp: "Instagram"),
        Row(
            name: "Facebook in-app on iPhone",
            agent:
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/449.0.0.40.106;FBBV/563839214;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.3;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]",
            platform: .ios, version: "17.3", device: .iphone, inApp: "Facebook"),
        Row(
            name: "Facebook in-app on Android",
            agent:
                "Mozilla/5.0 (Linux; Android 13; SM-S911B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.144 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/445.0.0.34.118;]",
            platform: .android, version: "13", device: .phone, inApp: "Facebook"),
        Row(
            name: "Chrome on Android phone",
            agent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.144 Mobile Safari/537.36",
            platform: .android, version: "14", device: .phone),
        Row(
            name: "Chrome's reduced UA on Android (the version is frozen)",
            agent: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0.0.0 Mobile Safari/537.36",
            platform: .android, version: nil, device: .phone),
        Row(
            name: "Samsung Internet",
            agent:
                "Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
            platform: .android, version: "13", device: .phone),
        Row(
            name: "Chrome on Android tablet",
            agent: "Mozilla/5.0 (Linux; Android 12; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36",
            platform: .android, version: "12", device: .tablet),
        Row(
            name: "Cubot phone is no bot",
            agent: "Mozilla/5.0 (Linux; Android 11; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/110.0.0.0 Mobile Safari/537.36",
            platform: .android, version: "11", device: .phone),
        Row(
            name: "Chrome on Windows",
            agent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
            platform: .desktop, version: "10.0", device: .desktop),
        Row(
            name: "Safari on macOS",
            agent: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15",
            platform: .desktop, version: "10.15.7", device: .desktop),
        Row(
            name: "Firefox on Linux", agent: "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
            platform: .desktop, version: nil, device: .desktop),
        Row(
            name: "Googlebot",
            agent:
                "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.129 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            platform: .bot, version: nil, device: nil),
        Row(
            name: "Facebook link preview", agent: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", platform: .bot,
            version: nil, device: nil),
        Row(name: "Twitter card fetcher", agent: "Twitterbot/1.0", platform: .bot, version: nil, device: nil),
        Row(name: "Slack unfurl", agent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", platform: .bot, version: nil, device: nil),
        Row(
            name: "iMessage preview (claims to be Facebook)",
            agent:
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
            platform: .bot, version: nil, device: nil),
        Row(name: "WhatsApp preview", agent: "WhatsApp/2.23.20.0", platform: .bot, version: nil, device: nil),
        Row(name: "Discord", agent: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", platform: .bot, version: nil, device: nil),
        Row(
            name: "Bingbot", agent: "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", platform: .bot, version: nil,
            device: nil),
        Row(name: "curl", agent: "curl/8.4.0", platform: .bot, version: nil, device: nil),
        Row(name: "no User-Agent", agent: nil, platform: .bot, version: nil, device: nil),
        Row(name: "LinkForty app UA", agent: "Shop/2.1 iOS/17.4.1", platform: .ios, version: "17.4.1", device: .iphone),
        Row(name: "Android app UA", agent: "Shop/2.1 (Linux; Android 14)", platform: .android, version: "14", device: .tablet),
    ]

    @Test(arguments: rows)
    func classifies(_ row: Row) {
        let info = UserAgentParser.parse(row.agent)
        #expect(info.platform == row.platform)
        #expect(info.osVersion == row.version)
        #expect(info.deviceClass == row.device)
        if let inApp = row.inApp { #expect(info.inAppBrowser == inApp) }
    }
}

@Suite struct AcceptLanguageTests {
    @Test func ordersByQualityThenPosition() {
        #expect(Click.languages(fromAcceptLanguage: "fr-FR,fr;q=0.9,en-US;q=0.8,en;q=0.7") == ["fr-FR", "fr", "en-US", "en"])
        #expect(Click.languages(fromAcceptLanguage: "en;q=0.5, de") == ["de", "en"])
        #expect(Click.languages(fromAcceptLanguage: "*") == [])
        #expect(Click.languages(fromAcceptLanguage: nil) == [])
        #expect(Click.languages(fromAcceptLanguage: "es;q=0") == [])
    }

    @Test func malformedHeadersGiveWhatCanBeReadAndNeverTrap() {
        // A part made only of semicolons used to index an empty split; a part starting with one has no tag.
        #expect(Click.languages(fromAcceptLanguage: ";") == [])
        #expect(Click.languages(fromAcceptLanguage: ";;, ;") == [])
        #expect(Click.languages(fromAcceptLanguage: ",,de,,;q=1, \t it ;q=0.4") == ["de", "it"])
        #expect(Click.languages(fromAcceptLanguage: "pt-BR;q=abc") == ["pt-BR"])
        #expect(Click.languages(fromAcceptLanguage: String(repeating: "x", count: 36)) == [])
    }
}
