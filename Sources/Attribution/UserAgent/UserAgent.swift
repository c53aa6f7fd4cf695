import Foundation

/// What a click's (or an app's) User-Agent says about the device.
public struct UserAgentInfo: Sendable, Equatable {
    public enum Platform: String, Sendable, CaseIterable {
        case ios, android, desktop, bot

        /// The platform an SDK names (`iOS`, `IOS`, `iPadOS`, `Android`, any case); nil for others
        /// (cross-platform wrappers such as `FLUTTER`), which callers tell from other signals.
        public init?(declared name: String?) {
            switch name?.lowercased() {
            case "ios", "ipados": self = .ios
            case "android": self = .android
            default: return nil
            }
        }
    }
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

/// A pure User-Agent classifier for clicks: crawlers and link-preview fetchers first (they often
/// claim to be iPhones too), then iOS, Android, desktop. It runs on every click, so it works on the
/// ASCII-lower-cased bytes once, with plain byte searches (no Foundation string search).
public enum UserAgentParser {
    /// Substrings of crawlers, link-preview fetchers and scripted clients.
    static let reducedAndroid = Array("android 10; k)".utf8)
    static let botMarkers: [[UInt8]] = [
        "googlebot", "bingbot", "applebot", "yandex", "baiduspider", "duckduckbot", "slurp", "facebookexternalhit",
        "facebookcatalog", "facebot", "meta-externalagent", "twitterbot", "slackbot", "slack-imgproxy", "discordbot",
        "telegrambot", "whatsapp/", "linkedinbot", "skypeuripreview", "pinterestbot", "redditbot", "embedly",
        "iframely", "vkshare", "bitlybot", "mastodon", "headlesschrome", "lighthouse", "petalbot", "semrush", "ahrefs",
        "curl/", "wget/", "python-requests", "python-urllib", "go-http-client", "java/", "libwww-perl", "httpclient",
        "okhttp", "axios/", "node-fetch", "postmanruntime", "google-inspectiontool", "google-read-aloud",
    ].map { Array($0.utf8) }

    /// The apps whose embedded browsers (webviews) do not open universal links or app links, by a
    /// marker of their User-Agent, first match wins (Messenger's carries Facebook's marker too).
    /// The markers are the apps' own tokens, as seen in their UA strings (the tests hold one real
    /// string of each, iOS and Android) and as the common detection lists have them.
    static let inAppBrowsers: [(marker: [UInt8], name: String)] = [
        ("messengerforios", "Messenger"), ("orca-android", "Messenger"), ("instagram", "Instagram"), ("fban/", "Facebook"),
        ("fbav/", "Facebook"), ("fb_iab", "Facebook"), ("musical_ly", "TikTok"), ("bytedancewebview", "TikTok"),
        ("tiktok", "TikTok"), ("snapchat", "Snapchat"), (" line/", "LINE"), ("micromessenger", "WeChat"),
        ("telegram", "Telegram"), ("twitter", "X"), ("linkedinapp", "LinkedIn"), ("pinterest", "Pinterest"), ("gsa/", "Google"),
    ].map { (Array($0.0.utf8), $0.1) }

    /// The names of the apps whose in-app browsers are recognised, each once.
    public static var inAppBrowserNames: [String] {
        var names: [String] = []
        for (_, name) in inAppBrowsers where !names.contains(name) { names.append(name) }
        return names
    }

    /// Recent answers by User-Agent: real traffic repeats a few thousand strings, so most clicks
    /// skip the parse. Bounded; cleared when full.
    private static let cache = ParseCache(capacity: 4096)

    public static func parse(_ userAgent: String?) -> UserAgentInfo {
        // No real browser omits its User-Agent: such a request is a script.
        guard let userAgent, !userAgent.isEmpty else { return UserAgentInfo(platform: .bot) }
        if let known = cache.value(for: userAgent) { return known }
        let info = classify(userAgent)
        cache.store(info, for: userAgent)
        return info
    }

    static func classify(_ userAgent: String) -> UserAgentInfo {
        let original = Array(userAgent.utf8.prefix(1024))
        let lower = original.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        if botMarkers.contains(where: { ByteSearch.contains(lower, $0) }) || hasGenericBotWord(lower) {
            return UserAgentInfo(platform: .bot)
        }
        let inApp = inAppBrowsers.first { ByteSearch.contains(lower, $0.marker) }?.name

        if lower.contains("iphone") || lower.contains("ipod") || lower.contains("ipad") {
            let deviceClass: UserAgentInfo.DeviceClass = lower.contains("ipad") ? .ipad : .iphone
            return UserAgentInfo(platform: .ios, osVersion: version(after: " OS ", in: original), deviceClass: deviceClass, inAppBrowser: inApp)
        }
        if lower.contains("android") {
            // Chrome's reduced UA (Chrome 110 on) says "Android 10; K" on every phone: no version at all.
            let reduced = ByteSearch.contains(lower, reducedAndroid)
            let version =
                reduced ? nil : version(after: "android ", in: original, lower: lower) ?? version(after: "android/", in: original, lower: lower)
            // Android phones' browsers say "Mobile"; tablets' do not.
            let deviceClass: UserAgentInfo.DeviceClass = lower.contains("mobile") ? .phone : .tablet
            return UserAgentInfo(platform: .android, osVersion: version, deviceClass: deviceClass, inAppBrowser: inApp)
        }
        // App user agents (`Shop/2.1 iOS/17.4.1`, `MyApp/1.0 CFNetwork/1490 Darwin/23.4.0`).
        if let version = version(after: "ios/", in: original, lower: lower) ?? version(after: "ipados/", in: original, lower: lower) {
            return UserAgentInfo(platform: .ios, osVersion: version, deviceClass: lower.contains("ipados") ? .ipad : .iphone)
        }
        if lower.contains("cfnetwork/"), lower.contains("darwin/") {
            return UserAgentInfo(platform: .ios)
        }
        var desktopVersion: String?
        if lower.contains("windows nt") {
            desktopVersion = version(after: "windows nt ", in: original, lower: lower)
        } else if lower.contains("mac os x") {
            desktopVersion = version(after: "mac os x ", in: original, lower: lower)
        }
        return UserAgentInfo(platform: .desktop, osVersion: desktopVersion, deviceClass: .desktop, inAppBrowser: inApp)
    }

    /// `bot`, `crawler` or `spider` starting a word (so `Cubot` phones are not bots).
    static func hasGenericBotWord(_ lower: [UInt8]) -> Bool {
        for word in ["bot", "crawler", "spider"] {
            let pattern = Array(word.utf8)
            var searchFrom = 0
            while let found = ByteSearch.index(of: pattern, in: lower, from: searchFrom) {
                let before = found == 0 ? UInt8(ascii: " ") : lower[found - 1]
                if !(before >= 0x61 && before <= 0x7A) { return true }
                searchFrom = found + 1
            }
        }
        return false
    }

    /// The dotted or underscored version right after `marker` (matched case-insensitively when
    /// `lower` is given): `OS 17_4_1` → `17.4.1`.
    static func version(after marker: String, in original: [UInt8], lower: [UInt8]? = nil) -> String? {
        let pattern = Array(marker.utf8)
        guard let found = ByteSearch.index(of: pattern, in: lower ?? original, from: 0) else { return nil }
        var bytes: [UInt8] = []
        for byte in original[(found + pattern.count)...] {
            if byte >= 0x30 && byte <= 0x39 {
                bytes.append(byte)
            } else if byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") {
                bytes.append(UInt8(ascii: "."))
            } else {
                break
            }
        }
        while bytes.last == UInt8(ascii: ".") { bytes.removeLast() }
        guard let first = bytes.first, first >= 0x30 && first <= 0x39 else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension [UInt8] {
    fileprivate func contains(_ text: StaticString) -> Bool {
        ByteSearch.contains(self, UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

/// A small thread-safe memo of parse results.
final class ParseCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: UserAgentInfo] = [:]  // guarded by `lock`
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func value(for key: String) -> UserAgentInfo? {
        lock.lock()
        defer { lock.unlock() }
        return entries[key]
    }

    func store(_ value: UserAgentInfo, for key: String) {
        guard key.utf8.count <= 1024 else { return }
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[key] = value
    }
}

/// Substring search over bytes: scan for the first byte, then compare the rest.
enum ByteSearch {
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        needle.withUnsafeBufferPointer { contains(haystack, $0) }
    }

    static func contains(_ haystack: [UInt8], _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        haystack.withUnsafeBufferPointer { index(of: needle, in: $0, from: 0) } != nil
    }

    static func index(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        needle.withUnsafeBufferPointer { n in haystack.withUnsafeBufferPointer { index(of: n, in: $0, from: start) } }
    }

    static func index(of needle: UnsafeBufferPointer<UInt8>, in haystack: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let count = needle.count
        guard count > 0, haystack.count >= count else { return count == 0 ? start : nil }
        let first = needle[0]
        var position = start
        let last = haystack.count - count
        while position <= last {
            if haystack[position] == first {
                var matched = 1
                while matched < count && haystack[position + matched] == needle[matched] { matched += 1 }
                if matched == count { return position }
            }
            position += 1
        }
        return nil
    }
}
