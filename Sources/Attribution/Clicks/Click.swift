import Foundation
import Synchronization

/// A recorded tap on a link (or an app-side open), with every signal matching may use.
public struct Click: Sendable, Equatable {
    public enum Source: String, Sendable { case link, resolve, app }

    /// How much of each client-sent text a click keeps, whichever path recorded it.
    public enum Limits {
        public static let userAgent = 1024
        public static let acceptLanguage = 256
        public static let referer = 1024
    }

    public var clickID: String
    public var projectID: String
    public var linkID: String?
    public var source: Source
    public var createdAt: Timestamp
    public var ip: String?
    /// IPv4 as is, IPv6 as its /64 prefix: what probabilistic matching compares.
    public var ipKey: String?
    public var userAgent: String?
    public var acceptLanguage: String?
    public var referer: String?
    public var query: [String: String]
    public var utm: UTM
    public var platform: UserAgentInfo.Platform?
    public var osVersion: String?
    public var deviceClass: UserAgentInfo.DeviceClass?
    public var isBot: Bool
    /// Screen size in CSS points; `screenWidth × pixelRatio` is native pixels.
    public var screenWidth: Double?
    public var screenHeight: Double?
    public var pixelRatio: Double?
    public var timezone: String?
    /// Minutes east of UTC.
    public var utcOffsetMinutes: Int?
    public var languages: [String]
    public var idfv: String?
    public var advertisingID: String?
    /// The ad network's click id that came on the link URL, if any.
    public var networkClickID: NetworkClickID?
    /// The link's A/B variant this tap was sent to (`LinkVariant.name`).
    public var variant: String?
    /// ISO 3166-1 alpha-2, from the configured geo database or a trusted proxy's header.
    public var country: String?
    /// The class of the client's address, when the operator's lists know it.
    public var ipClass: AddressClass? = nil

    public init(
        clickID: String, projectID: String, linkID: String?, source: Source, createdAt: Timestamp, ip: String? = nil,
        ipKey: String? = nil, userAgent: String? = nil, acceptLanguage: String? = nil, referer: String? = nil,
        query: [String: String] = [:], utm: UTM = UTM(), platform: UserAgentInfo.Platform? = nil, osVersion: String? = nil,
        deviceClass: UserAgentInfo.DeviceClass? = nil, isBot: Bool = false, screenWidth: Double? = nil,
        screenHeight: Double? = nil, pixelRatio: Double? = nil, timezone: String? = nil, utcOffsetMinutes: Int? = nil,
        languages: [String] = [], idfv: String? = nil, advertisingID: String? = nil, networkClickID: NetworkClickID? = nil,
        variant: String? = nil, country: String? = nil
    ) {
        self.variant = variant
        self.country = country
        self.clickID = clickID
        self.projectID = projectID
        self.linkID = linkID
        self.source = source
        self.createdAt = createdAt
        self.ip = ip
        self.ipKey = ipKey
        self.userAgent = userAgent.map { $0.prefix(characters: Limits.userAgent) }
        self.acceptLanguage = acceptLanguage.map { $0.prefix(characters: Limits.acceptLanguage) }
        self.referer = referer.map { $0.prefix(characters: Limits.referer) }
        self.query = query
        self.utm = utm
        self.platform = platform
        self.osVersion = osVersion
        self.deviceClass = deviceClass
        self.isBot = isBot
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.pixelRatio = pixelRatio
        self.timezone = timezone
        self.utcOffsetMinutes = utcOffsetMinutes
        self.languages = languages
        self.idfv = idfv
        self.advertisingID = advertisingID
        self.networkClickID = networkClickID
    }

    /// Accept-Language → language tags in preference order (`fr-FR,fr;q=0.9,en;q=0.8` → `[fr-FR, fr, en]`).
    /// Runs on every click: plain byte work, no Foundation.
    public static func languages(fromAcceptLanguage header: String?) -> [String] {
        guard let header, !header.isEmpty else { return [] }
        var ranked: [(tag: Substring, quality: Double, position: Int)] = []
        // Split on bytes: `,` and `;` are ASCII, and a Character split walks grapheme clusters.
        for (position, part) in header.utf8.split(separator: UInt8(ascii: ",")).prefix(20).enumerated() {
            // Empty pieces kept: in ";q=1" the tag is the empty first piece, not "q=1".
            let pieces = part.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            let tag = trimmed(Substring(pieces[0]))
            guard !tag.isEmpty, tag != "*", tag.utf8.count <= 35 else { continue }
            var quality = 1.0
            for parameter in pieces.dropFirst() {
                let text = trimmed(Substring(parameter))
                if text.utf8.starts(with: "q=".utf8), let value = Double(text.dropFirst(2)) { quality = value }
            }
            if quality > 0 { ranked.append((tag, quality, position)) }
        }
        if ranked.count > 1 { ranked.sort { $0.quality != $1.quality ? $0.quality > $1.quality : $0.position < $1.position } }
        return ranked.prefix(10).map { String($0.tag) }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while text.utf8.first == UInt8(ascii: " ") || text.utf8.first == UInt8(ascii: "\t") { text = text.dropFirst() }
        while text.utf8.last == UInt8(ascii: " ") || text.utf8.last == UInt8(ascii: "\t") { text = text.dropLast() }
        return text
    }
}

/// What the interstitial page's script (or its image fallback) reports about the browser.
public struct BrowserSignals: Sendable, Equatable {
    public var screenWidth: Double?
    public var screenHeight: Double?
    public var pixelRatio: Double?
    public var timezone: String?
    /// As JavaScript reports it: minutes **west** of UTC (`getTimezoneOffset()`).
    public var javascriptOffset: Int?
    public var languages: [String]?

    public init(
        screenWidth: Double? = nil, screenHeight: Double? = nil, pixelRatio: Double? = nil, timezone: String? = nil,
        javascriptOffset: Int? = nil, languages: [String]? = nil
    ) {
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.pixelRatio = pixelRatio
        self.timezone = timezone
        self.javascriptOffset = javascriptOffset
        self.languages = languages
    }

    /// Minutes east of UTC, the convention stored and compared everywhere else.
    public var utcOffsetMinutes: Int? { javascriptOffset.map { $0 == 0 ? 0 : -$0 } }

    /// Problems named by the beacon's own field names (`sw`, `tz`, …).
    public func validate() -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        for (key, value) in [("sw", screenWidth), ("sh", screenHeight)] {
            if let value, !ScreenSize.isPlausibleSide(value) { problems.append(.init(key, "must be a number from 1 to 20000")) }
        }
        if let pixelRatio, !(pixelRatio.isFinite && pixelRatio >= 0.25 && pixelRatio <= 10) {
            problems.append(.init("dpr", "must be a number from 0.25 to 10"))
        }
        if let timezone, !TimeZoneNames.isValid(timezone) { problems.append(.init("tz", "must be an IANA time zone such as Europe/Paris")) }
        // Real offsets run from UTC-12 to UTC+14.
        if let javascriptOffset, !(-840...720).contains(javascriptOffset) { problems.append(.init("tzo", "must be minutes from -840 to 720")) }
        if let languages {
            if languages.count > 10 { problems.append(.init("langs", "at most 10 languages")) }
            for (index, tag) in languages.enumerated() where !LanguageTag.isPlausible(tag) {
                problems.append(.init("langs[\(index)]", "must be a language tag such as fr-FR"))
            }
        }
        return problems
    }
}

public enum TimeZoneNames {
    /// An IANA zone id known to this system's tz database (UTC and GMT included).
    public static func isValid(_ identifier: String) -> Bool {
        // ASCII without blanks or line breaks, 1 to 64 bytes.
        guard (1...64).contains(identifier.utf8.count),
            identifier.utf8.allSatisfy({ $0 < 0x80 && $0 != 0x20 && !(0x09...0x0D).contains($0) })
        else { return false }
        if let known = answers.withLock({ $0[identifier] }) { return known }
        // Asking Foundation costs microseconds, and clients send the same few dozen zones.
        let valid = TimeZone(identifier: identifier) != nil
        answers.withLock { answers in
            if answers.count >= 1024 { answers.removeAll(keepingCapacity: true) }
            answers[identifier] = valid
        }
        return valid
    }

    private static let answers = Mutex<[String: Bool]>([:])
}

public enum LanguageTag {
    /// `en`, `en-GB`, `zh-Hant-TW`, `en_US` (Apple's spelling): letters, digits, '-' or '_', ≤ 35 characters.
    public static func isPlausible(_ tag: String) -> Bool {
        guard let first = tag.first, first.isASCII, first.isLetter, tag.count <= 35 else { return false }
        return tag.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
