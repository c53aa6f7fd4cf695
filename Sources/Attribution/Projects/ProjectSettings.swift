/// How a project's requests must be signed (Linkrunner HMAC signing).
public enum SigningMode: String, Sendable, Codable, CaseIterable {
    case off, optional, required
}

/// Whether the SDK routes that write (LinkForty install and event reports) need a credential of
/// the project: an API key or the project's token. `open` is LinkForty's own contract, for apps
/// that ship without an API key; there the install id alone decides which project an event is for.
public enum SDKAuthentication: String, Sendable, Codable, CaseIterable {
    case required, open
}

/// The Play Install Referrer a link's Play Store URL carries: the link's own UTM values and the
/// click id (what Play Console and any referrer reader see), or WarpLink's shape, which WarpLink's
/// Android SDK reads (`utm_source=warplink`, the link's id as `utm_content`, and the click id).
public enum PlayReferrerFormat: String, Sendable, Codable, CaseIterable {
    case utm, warplink
}

/// Everything about a project an operator can set. Values are validated by `validate()` before
/// they are stored; each problem names its key.
public struct ProjectSettings: Sendable, Equatable {
    public var iosTeamID: String?
    public var iosBundleID: String?
    public var androidPackage: String?
    /// SHA-256 fingerprints of the app's signing certificates, `AA:BB:...` (32 bytes).
    public var androidSHA256: [String] = []
    public var iosStoreURL: String?
    public var androidStoreURL: String?
    public var webURL: String?
    public var attributionWindowHours = 168
    public var minConfidence = 0.50
    /// The currency amounts without one are in (events, uploaded cost).
    public var currency = "USD"
    /// The currency reports that add money up convert into at each day's rate (the ROAS report).
    public var reportingCurrency = "USD"
    /// The project's time zone (IANA): the dashboard's days.
    public var timeZone = "UTC"
    public var signing: SigningMode = .off
    public var sdkAuth: SDKAuthentication = .required
    /// Raw SKAN schema JSON; its rules are validated by the SKAN module.
    public var skanSchema: String?
    /// The project's own decay steps and candidate penalty (defaults otherwise).
    public var matching: MatchingOverrides?
    /// Query parameters that carry an ad network's click id, beyond `NetworkClickID.standardParameters`.
    public var clickIDParameters: [String] = []
    /// Exchange Apple Ads (AdServices) tokens the SDKs send; off: they are dropped unread.
    public var appleAds = true
    /// Lead taps in social apps' browsers out to the system browser (links may say otherwise).
    public var inAppEscape = true
    /// The App Store id Apple's postback copies name the app by; nil: read from `iosStoreURL`.
    public var iosAppStoreID: Int64?
    /// Where verified postback copies are forwarded unchanged (an MMP's feed, say).
    public var skanForwarding: [String] = []
    /// Named UTM values offered when a link is made (`UTMTemplate`).
    public var utmTemplates: [UTMTemplate] = []
    /// Hosts a long link's `link` and fallbacks may name beyond the project's domains and web
    /// host (`shop.example`, or `*.shop.example` for its subdomains): FDL's allow-list.
    public var longLinkHosts: [String] = []
    /// How many distinct long links one of the project's domains keeps (each is a link row).
    public var longLinksPerDomain = 10_000
    /// What a link's Play Store URL hands the app through the Install Referrer.
    public var playReferrer: PlayReferrerFormat = .utm
    /// What an install that told nothing of its user's consent is taken to have agreed to
    /// (docs/ad-platforms/consent.md); every signal unknown by default.
    public var defaultConsent = Consent()
    /// The fraud rules matching applies (docs/traffic-quality.md).
    public var trafficQuality = TrafficQualityRules()
    public static let longLinksPerDomainRange = 0...1_000_000

    public init() {}

    public static let maxSKANForwardingURLs = 10

    /// The id postbacks are matched on: the one set, or the one in the store URL.
    public var appStoreID: Int64? { iosAppStoreID ?? iosStoreURL.flatMap(AppStoreID.from(storeURL:)) }

    public static let attributionWindowRange = 1...2160

    public func validate() -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        if let team = iosTeamID, !Self.isAppleTeamID(team) {
            problems.append(.init("ios_team_id", "must be 10 upper-case letters or digits"))
        }
        if let bundle = iosBundleID, !Self.isReverseDNS(bundle) {
            problems.append(.init("ios_bundle_id", "must be a reverse-DNS identifier such as com.example.app"))
        }
        if let package = androidPackage, !Self.isReverseDNS(package) {
            problems.append(.init("android_package", "must be a package name such as com.example.app"))
        }
        for (index, fingerprint) in androidSHA256.enumerated() where !Self.isSHA256Fingerprint(fingerprint) {
            problems.append(.init("android_sha256[\(index)]", "must be 32 hex bytes separated by colons"))
        }
        problems += Self.urlProblems([("ios_store_url", iosStoreURL), ("android_store_url", androidStoreURL), ("web_url", webURL)])
        if !Self.attributionWindowRange.contains(attributionWindowHours) {
            problems.append(.init("attribution_window_hours", "must be between 1 and 2160"))
        }
        if !(0...1).contains(minConfidence) {
            problems.append(.init("min_confidence", "must be between 0 and 1"))
        }
        if let matching { problems += matching.validate() }
        if let id = iosAppStoreID, !(1...999_999_999_999_999).contains(id) {
            problems.append(.init("ios_app_store_id", "must be the app's App Store id, a positive number (apps.apple.com/app/id…)"))
        }
        if skanForwarding.count > Self.maxSKANForwardingURLs {
            problems.append(.init("urls", "must name at most \(Self.maxSKANForwardingURLs) URLs"))
        }
        problems += Self.urlProblems(skanForwarding.enumerated().map { ("urls[\($0.offset)]", $0.element) })
        if longLinkHosts.count > 50 { problems.append(.init("long_link_hosts", "must name at most 50 hosts")) }
        for (index, pattern) in longLinkHosts.enumerated() where !LongLinkPolicy.isHostPattern(pattern) {
            problems.append(.init("long_link_hosts[\(index)]", "must be a host name such as shop.example, or *.shop.example for its subdomains"))
        }
        if !Self.longLinksPerDomainRange.contains(longLinksPerDomain) {
            problems.append(.init("long_links_per_domain", "must be between 0 and 1000000"))
        }
        if clickIDParameters.count > 20 { problems.append(.init("click_id_parameters", "must name at most 20 parameters")) }
        for (index, name) in clickIDParameters.enumerated() where !NetworkClickID.isValidParameterName(name) {
            problems.append(.init("click_id_parameters[\(index)]", "must be 1 to 64 characters of A-Z, a-z, 0-9, '_', '-' or '.'"))
        }
        if LocalCalendar(identifier: timeZone) == nil {
            problems.append(.init("time_zone", "must be an IANA time zone name such as Europe/Berlin or UTC"))
        }
        if !MoneyAmount.isCurrencyCode(currency) {
            problems.append(.init("currency", "must be a three-letter ISO 4217 code such as USD"))
        }
        problems += trafficQuality.validate()
        if !MoneyAmount.isCurrencyCode(reportingCurrency) {
            problems.append(.init("reporting_currency", "must be a three-letter ISO 4217 code such as USD"))
        }
        return problems
    }

    static func isAppleTeamID(_ text: String) -> Bool {
        text.count == 10 && text.allSatisfy { ($0.isASCII && $0.isUppercase) || ($0.isASCII && $0.isNumber) }
    }

    public static func isReverseDNS(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2
            && parts.allSatisfy { part in
                !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
            }
    }

    static func isSHA256Fingerprint(_ text: String) -> Bool {
        let bytes = text.split(separator: ":", omittingEmptySubsequences: false)
        return bytes.count == 32 && bytes.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

    /// A problem for each given URL that is set but is not an absolute http(s) URL.
    static func urlProblems(_ urls: [(key: String, url: String?)]) -> [ValidationProblem] {
        urls.compactMap { key, url in url.flatMap { URLGrammar.httpURLProblem($0).map { ValidationProblem(key, $0) } } }
    }
}

/// What a project may change of `MatchingPolicy`.
public struct MatchingOverrides: Sendable, Equatable {
    public var decay: [MatchingPolicy.DecayStep]?
    public var candidatePenalty: Double?

    public init(decay: [MatchingPolicy.DecayStep]? = nil, candidatePenalty: Double? = nil) {
        self.decay = decay
        self.candidatePenalty = candidatePenalty
    }

    public func validate() -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        if let decay {
            if !(1...8).contains(decay.count) { problems.append(.init("matching.decay", "must have 1 to 8 steps")) }
            for (index, step) in decay.enumerated() {
                if step.underSeconds < 60 || step.underSeconds > 2160 * 3600 {
                    problems.append(.init("matching.decay[\(index)].under_hours", "must be between 1/60 and 2160"))
                }
                if !(0...1).contains(step.confidence) { problems.append(.init("matching.decay[\(index)].confidence", "must be between 0 and 1")) }
                if index > 0, step.underSeconds <= decay[index - 1].underSeconds {
                    problems.append(.init("matching.decay[\(index)].under_hours", "must be greater than the step before"))
                }
                if index > 0, step.confidence > decay[index - 1].confidence {
                    problems.append(.init("matching.decay[\(index)].confidence", "must not be above the step before (confidence decays)"))
                }
            }
        }
        if let penalty = candidatePenalty, !(0...1).contains(penalty) {
            problems.append(.init("matching.candidate_penalty", "must be between 0 and 1"))
        }
        return problems
    }
}

/// One rejected value: the key (a JSON path) and what is wrong with it.
public struct ValidationProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let key: String
    public let message: String

    public init(_ key: String, _ message: String) {
        self.key = key
        self.message = message
    }

    public var description: String { "\(key): \(message)" }

    /// The same problem under the name a wire format gives its key (`web_url` → `webFallbackUrl`).
    public func renamed(_ names: [String: String]) -> ValidationProblem {
        names[key].map { ValidationProblem($0, message) } ?? self
    }
}
