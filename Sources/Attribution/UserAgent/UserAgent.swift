import Foundation

/// What a click's (or an app's) User-Agent says about the device.
public struct UserAgentInfo: Sendable, Equatable {
    public enum Platform: String, Sendable, CaseIterable { case ios, android, desktop, bot }
    public enum DeviceClass: String, Sendable { case iphone, ipad, phone, tablet, desktop }

    public var platform: Platform
    /// major.minor[.patch] with dots (`OS 17_4_1` → `17.4.1`).
    public var osVersion: String?
    public var deviceClass: DeviceClass?
    public var isBot: Bool { platform == .bot }
    /// The app whose embedded browser made the request (Instagram, Facebook, …).
    public var inAppBrowser: String?

    public init(platform: Platform, osVersion: String? = nil, deviceClass: DeviceClass? = nil, inAppBrowser: String? = nil) {
        self.platform = platform
        self.osVersion = osVersion
        self.deviceClass = deviceClass
        self.inAppBrowser = inAppBrowser
    }
}

/// A pure, allocation-light User-Agent classifier for clicks: crawlers and link-preview fetchers
/// first (they often claim to be iPhones too), then iOS, Android, desktop.
public enum UserAgentParser {
    /// Substrings (lower-case) of crawlers, link-preview fetchers and scripted clients.
    static let botMarkers = [
        "googlebot", "bingbot", "applebot", "yandex", "baiduspider", "duckduckbot", "slurp", "facebookexternalhit",
        "facebookcatalog", "facebot", "meta-externalagent", "twitterbot", "slackbot", "slack-imgproxy", "discordbot",
        "telegrambot", "whatsapp/", "linkedinbot", "skypeuripreview", "pinterestbot", "redditbot", "embedly",
        "iframely", "vkshare", "bitlybot", "mastodon", "headlesschrome", "lighthouse", "petalbot", "semrush", "ahrefs",
        "curl/", "wget/", "python-requests", "python-urllib", "go-http-client", "java/", "libwww-perl", "httpclient",
        "okhttp", "axios/", "node-fetch", "postmanruntime", "google-inspectiontool", "google-read-aloud", "chrome-lighthouse",
    ]

    static let inAppBrowsers: [(marker: String, name: String)] = [
        ("instagram", "Instagram"), ("fban/", "Facebook"), ("fbav/", "Facebook"), ("fb_iab", "Facebook"),
        ("musical_ly", "TikTok"), ("bytedancewebview", "TikTok"), ("snapchat", "Snapchat"), ("line/", "LINE"),
        ("twitter", "Twitter"), ("linkedinapp", "LinkedIn"), ("pinterest/", "Pinterest"), ("gsa/", "Google"),
    ]

    public static func parse(_ userAgent: String?) -> UserAgentInfo {
        // No real browser omits its User-Agent: such a request is a script.
        guard let userAgent, !userAgent.isEmpty else { return UserAgentInfo(platform: .bot) }
        let lower = userAgent.lowercased()
        if botMarkers.contains(where: { lower.contains($0) }) || hasGenericBotWord(lower) {
            return UserAgentInfo(platform: .bot)
        }
        let inApp = inAppBrowsers.first { lower.contains($0.marker) }?.name

        if lower.contains("iphone") || lower.contains("ipod") || lower.contains("ipad") {
            let deviceClass: UserAgentInfo.DeviceClass = lower.contains("ipad") ? .ipad : .iphone
            return UserAgentInfo(platform: .ios, osVersion: appleOSVersion(userAgent), deviceClass: deviceClass, inAppBrowser: inApp)
        }
        if lower.contains("android") {
            let version = version(after: "Android ", in: userAgent) ?? version(after: "Android/", in: userAgent)
            // Android phones' browsers say "Mobile"; tablets' do not.
            let deviceClass: UserAgentInfo.DeviceClass = lower.contains("mobile") ? .phone : .tablet
            return UserAgentInfo(platform: .android, osVersion: version, deviceClass: deviceClass, inAppBrowser: inApp)
        }
        // App user agents (`Shop/2.1 iOS/17.4.1`, `MyApp/1.0 CFNetwork/1490 Darwin/23.4.0`).
        if let version = version(after: "iOS/", in: userAgent) ?? version(after: "iPadOS/", in: userAgent) {
            return UserAgentInfo(platform: .ios, osVersion: version, deviceClass: lower.contains("ipados") ? .ipad : .iphone)
        }
        if lower.contains("cfnetwork/"), lower.contains("darwin/") {
            return UserAgentInfo(platform: .ios, osVersion: nil, deviceClass: nil)
        }
        var desktopVersion: String?
        if lower.contains("windows nt") { desktopVersion = version(after: "Windows NT ", in: userAgent) }
        else if lower.contains("mac os x") { desktopVersion = version(after: "Mac OS X ", in: userAgent) }
        return UserAgentInfo(platform: .desktop, osVersion: desktopVersion, deviceClass: .desktop, inAppBrowser: inApp)
    }

    /// `bot`, `crawler` or `spider` starting a word (so `Cubot` phones are not bots).
    static func hasGenericBotWord(_ lower: String) -> Bool {
        let bytes = Array(lower.utf8)
        for word in ["bot", "crawler", "spider"] {
            let pattern = Array(word.utf8)
            var index = 0
            while index + pattern.count <= bytes.count {
                if bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                    let before = index == 0 ? UInt8(ascii: " ") : bytes[index - 1]
                    let isLetter = (before >= 0x61 && before <= 0x7A)
                    if !isLetter { return true }
                }
                index += 1
            }
        }
        return false
    }

    /// `CPU iPhone OS 17_4_1 like Mac OS X` / `CPU OS 16_0 like Mac OS X` → `17.4.1` / `16.0`.
    static func appleOSVersion(_ userAgent: String) -> String? {
        guard let range = userAgent.range(of: " OS ") else { return nil }
        let digits = userAgent[range.upperBound...].prefix { $0.isNumber || $0 == "_" || $0 == "." }
        let version = digits.replacingOccurrences(of: "_", with: ".")
        return version.isEmpty ? nil : version
    }

    /// The dotted or underscored version right after `marker`.
    static func version(after marker: String, in userAgent: String) -> String? {
        guard let range = userAgent.range(of: marker) else { return nil }
        let digits = userAgent[range.upperBound...].prefix { $0.isNumber || $0 == "." || $0 == "_" }
        let version = digits.replacingOccurrences(of: "_", with: ".").trimmingCharacters(in: CharacterSet(charactersIn: "."))
        return version.first?.isNumber == true ? version : nil
    }
}
