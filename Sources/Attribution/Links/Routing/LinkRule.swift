/// One routing rule of a link: when every condition it names holds for a tap, the tap goes to
/// `url` instead of the link's own destinations. A link's rules are tried in order and the first
/// that matches wins; a rule that names no condition matches every tap (a fallback), and when
/// none matches the link's destinations answer as usual.
public struct LinkRule: Sendable, Equatable {
    /// What a rule asks of a tap; a condition left nil asks nothing.
    public struct Conditions: Sendable, Equatable {
        public var platforms: [TapPlatform]?
        /// Inclusive bounds, compared number by number (`16.4` ≤ `16.4.1`); a bound with fewer
        /// numbers covers every version it starts (`max` `17` admits 17.4).
        public var minOSVersion: String?
        public var maxOSVersion: String?
        /// Language tags, lower-cased: `de` admits `de-AT`; `pt-br` admits only Brazilian Portuguese.
        /// Matched against the tap's preferred language (the first of its `Accept-Language`).
        public var languages: [String]?
        /// ISO 3166-1 alpha-2 codes, upper-cased.
        public var countries: [String]?
        /// The apps whose in-app browsers match, lower-cased (`instagram`, `tiktok`…), or `any`.
        public var inAppBrowsers: [String]?
        /// The rule holds from `after` (inclusive) until `before` (exclusive).
        public var after: Timestamp?
        public var before: Timestamp?

        public init(
            platforms: [TapPlatform]? = nil, minOSVersion: String? = nil, maxOSVersion: String? = nil, languages: [String]? = nil,
            countries: [String]? = nil, inAppBrowsers: [String]? = nil, after: Timestamp? = nil, before: Timestamp? = nil
        ) {
            self.platforms = platforms
            self.minOSVersion = minOSVersion
            self.maxOSVersion = maxOSVersion
            self.languages = languages
            self.countries = countries
            self.inAppBrowsers = inAppBrowsers
            self.after = after
            self.before = before
        }

        /// Whether the rule needs the tap's country (looked up only then).
        public var needsCountry: Bool { countries != nil }

        public func hold(for tap: Tap) -> Bool {
            if let platforms, !platforms.contains(tap.platform) { return false }
            if minOSVersion != nil || maxOSVersion != nil {
                guard let version = tap.osVersion.map(OSVersion.numbers) else { return false }
                if let minOSVersion, OSVersion.compare(version, OSVersion.numbers(minOSVersion), to: .lowerBound) < 0 { return false }
                if let maxOSVersion, OSVersion.compare(version, OSVersion.numbers(maxOSVersion), to: .upperBound) > 0 { return false }
            }
            if let languages {
                guard let preferred = tap.languages.first?.lowercased() else { return false }
                guard languages.contains(where: { preferred == $0 || preferred.hasPrefix($0 + "-") }) else { return false }
            }
            if let countries {
                guard let country = tap.country, countries.contains(country) else { return false }
            }
            if let inAppBrowsers {
                guard let browser = tap.inAppBrowser?.lowercased() else { return false }
                guard inAppBrowsers.contains("any") || inAppBrowsers.contains(browser) else { return false }
            }
            if let after, tap.time < after { return false }
            if let before, !(tap.time < before) { return false }
            return true
        }
    }

    public var when: Conditions
    public var url: String

    public init(when: Conditions, url: String) {
        self.when = when
        self.url = url
    }
}

/// The platforms rules name. `ios` is an iPhone or iPod, `ipados` an iPad; `desktop` a Windows,
/// macOS, Linux or ChromeOS browser; `other` anything else a person taps from (TVs, consoles…).
public enum TapPlatform: String, Sendable, CaseIterable {
    case ios, ipados, android, desktop, other

    public static func of(_ agent: UserAgentInfo, userAgent: String?) -> TapPlatform {
        switch agent.platform {
        case .ios: return agent.deviceClass == .ipad ? .ipados : .ios
        case .android: return .android
        case .bot: return .other
        case .desktop:
            let lower = (userAgent ?? "").lowercased()
            let desktopSystems = ["windows", "macintosh", "mac os x", "linux", "cros", "x11"]
            return desktopSystems.contains(where: lower.contains) ? .desktop : .other
        }
    }
}

/// What rules and variants know of one tap.
public struct Tap: Sendable, Equatable {
    public var platform: TapPlatform
    public var osVersion: String?
    /// From `Accept-Language`, most preferred first.
    public var languages: [String]
    /// ISO 3166-1 alpha-2, upper-cased, when known.
    public var country: String?
    public var inAppBrowser: String?
    public var time: Timestamp

    public init(
        platform: TapPlatform, osVersion: String? = nil, languages: [String] = [], country: String? = nil, inAppBrowser: String? = nil,
        time: Timestamp
    ) {
        self.platform = platform
        self.osVersion = osVersion
        self.languages = languages
        self.country = country
        self.inAppBrowser = inAppBrowser
        self.time = time
    }
}

extension [LinkRule] {
    /// The first rule that holds for `tap`.
    public func first(matching tap: Tap) -> LinkRule? { first { $0.when.hold(for: tap) } }

    /// Whether any rule asks for the tap's country.
    public var needCountry: Bool { contains { $0.when.needsCountry } }
}

/// Dotted OS versions as numbers.
enum OSVersion {
    enum Bound { case lowerBound, upperBound }

    static func numbers(_ text: String) -> [Int] { text.split(separator: ".").map { Int($0) ?? 0 } }

    /// -1, 0 or 1 as `version` is below, within or above `bound`. An upper bound with fewer
    /// numbers than the version compares only as many (17 admits 17.4); a lower bound's missing
    /// numbers are zeros.
    static func compare(_ version: [Int], _ bound: [Int], to kind: Bound) -> Int {
        let count = kind == .upperBound ? bound.count : max(version.count, bound.count)
        for index in 0..<count {
            let left = index < version.count ? version[index] : 0
            let right = index < bound.count ? bound[index] : 0
            if left != right { return left < right ? -1 : 1 }
        }
        return 0
    }
}
