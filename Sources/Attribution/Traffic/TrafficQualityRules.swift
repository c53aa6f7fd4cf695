/// The times Google Play's Install Referrer API gives with the referrer (seconds since 1970):
/// when the user tapped the link that led to the store, and when the install began.
public struct PlayReferrerTimes: Sendable, Equatable {
    public var referrerClick: Timestamp?
    public var installBegin: Timestamp?

    public init(referrerClick: Timestamp? = nil, installBegin: Timestamp? = nil) {
        self.referrerClick = referrerClick
        self.installBegin = installBegin
    }

    public var isEmpty: Bool { referrerClick == nil && installBegin == nil }
}

/// Why a click may not win an install (docs/traffic-quality.md), as stored and reported.
public enum RejectionReason: String, Sendable, CaseIterable {
    /// Made after the store had begun the install: a click fired by an app that saw the install
    /// start (click injection).
    case clickInjection = "click_injection"
    /// The click the Play referrer names was made at another time than Play saw its tap.
    case referrerTimeMismatch = "referrer_time_mismatch"
    /// From a hosting or datacenter address: no person taps a link from a server.
    case datacenterClick = "datacenter_click"
    /// One of more clicks from one address within an hour than `floodClicksPerAddressHour`: a
    /// burst no person taps (click flooding from a server or a compromised device).
    case clickFlooding = "click_flooding"
}

/// What an install is flagged for while keeping its attribution.
public enum QualityFlag: String, Sendable, CaseIterable {
    /// Installed sooner after the click than a store download and first launch can take.
    case shortClickToInstall = "short_click_to_install"
}

/// The project's fraud rules, each on by default (project setting `traffic_quality`).
public struct TrafficQualityRules: Sendable, Equatable {
    /// Refuse a click made after Play's `install_begin_timestamp`.
    public var clickInjection = true
    /// How far our click's time may be from Play's `referrer_click_timestamp` for the click the
    /// referrer names (0: not checked).
    public var referrerClickToleranceSeconds: Int64 = 600
    /// Installs sooner than this after their click are flagged (0: not checked).
    public var minClickToInstallSeconds: Int64 = 10
    /// Refuse clicks from hosting addresses.
    public var refuseDatacenterClicks = true
    /// On a carrier NAT address, match only with a screen or a time zone agreeing. Off by
    /// default: over twenty simulated populations it took 0.75 false positives a seed away and
    /// 7 true ones with them (docs/traffic-quality.md, "Carrier NAT").
    public var carrierNATNeedsDeviceSignal = false
    /// More clicks than this from one address within an hour are a flood (0: not checked).
    public var floodClicksPerAddressHour = 30

    public init() {}

    public var isDefault: Bool { self == TrafficQualityRules() }

    public static let toleranceRange: ClosedRange<Int64> = 0...86_400
    public static let minClickToInstallRange: ClosedRange<Int64> = 0...3_600
    public static let floodRange = 0...100_000

    public func validate() -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        if !Self.toleranceRange.contains(referrerClickToleranceSeconds) {
            problems.append(.init("traffic_quality.referrer_click_tolerance_seconds", "must be between 0 and 86400"))
        }
        if !Self.minClickToInstallRange.contains(minClickToInstallSeconds) {
            problems.append(.init("traffic_quality.min_click_to_install_seconds", "must be between 0 and 3600"))
        }
        if !Self.floodRange.contains(floodClicksPerAddressHour) {
            problems.append(.init("traffic_quality.flood_clicks_per_address_hour", "must be between 0 and 100000"))
        }
        return problems
    }

    public static let off: TrafficQualityRules = {
        var rules = TrafficQualityRules()
        rules.clickInjection = false
        rules.referrerClickToleranceSeconds = 0
        rules.minClickToInstallSeconds = 0
        rules.refuseDatacenterClicks = false
        rules.carrierNATNeedsDeviceSignal = false
        rules.floodClicksPerAddressHour = 0
        return rules
    }()

    /// Why `click` may not win `install`; nil when it may.
    /// - Parameter namedByReferrer: the Play referrer named this click (its id or its link).
    public func refusal(of click: CandidateClick, for install: InstallSignals, namedByReferrer: Bool) -> RejectionReason? {
        if refuseDatacenterClicks, click.addressClass?.treatment == .nonHuman { return .datacenterClick }
        guard let play = install.playReferrer else { return nil }
        if clickInjection, let begin = play.installBegin, click.createdAt.milliseconds > begin.milliseconds + 999 {
            // Play's times are whole seconds: a click within the second install began is not after it.
            return .clickInjection
        }
        if namedByReferrer, referrerClickToleranceSeconds > 0, let tapped = play.referrerClick,
            abs(click.createdAt.milliseconds - tapped.milliseconds) > referrerClickToleranceSeconds * 1000 + 999
        {
            return .referrerTimeMismatch
        }
        return nil
    }

    /// The clicks of one network that came in a flood: every click of an hour that holds more than
    /// `floodClicksPerAddressHour` of them (app-side opens and relay regions, whose keys many
    /// share, aside).
    public func flooded(_ network: [CandidateClick]) -> Set<String> {
        let threshold = floodClicksPerAddressHour
        let taps = network.filter { !$0.isAppOpen && !$0.isRelayed }.sorted { $0.createdAt < $1.createdAt }
        guard threshold > 0, taps.count > threshold else { return [] }
        var flooded: Set<String> = []
        var last = 0
        // For each first click of an hour, the clicks until the hour ends.
        for first in taps.indices {
            last = max(last, first)
            while last + 1 < taps.count, taps[last + 1].createdAt.milliseconds < taps[first].createdAt.milliseconds + 3_600_000 { last += 1 }
            if last - first + 1 > threshold { for index in first...last { flooded.insert(taps[index].clickID) } }
        }
        return flooded
    }

    /// What the attributed install is flagged for.
    public func flags(of result: MatchResult, install: InstallSignals) -> [QualityFlag] {
        guard result.attributed, let clickedAt = result.clickedAt, minClickToInstallSeconds > 0 else { return [] }
        let seconds = install.time.milliseconds - clickedAt.milliseconds
        return seconds < minClickToInstallSeconds * 1000 ? [.shortClickToInstall] : []
    }
}

// Stored and served as `{"click_injection":true,"referrer_click_tolerance_seconds":600,…}`.
extension TrafficQualityRules: Codable {
    enum CodingKeys: String, CodingKey {
        case clickInjection = "click_injection"
        case referrerClickToleranceSeconds = "referrer_click_tolerance_seconds"
        case minClickToInstallSeconds = "min_click_to_install_seconds"
        case refuseDatacenterClicks = "refuse_datacenter_clicks"
        case carrierNATNeedsDeviceSignal = "carrier_nat_needs_device_signal"
        case floodClicksPerAddressHour = "flood_clicks_per_address_hour"
    }

    /// Keys left out keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        clickInjection = try c.decodeIfPresent(Bool.self, forKey: .clickInjection) ?? clickInjection
        referrerClickToleranceSeconds = try c.decodeIfPresent(Int64.self, forKey: .referrerClickToleranceSeconds) ?? referrerClickToleranceSeconds
        minClickToInstallSeconds = try c.decodeIfPresent(Int64.self, forKey: .minClickToInstallSeconds) ?? minClickToInstallSeconds
        refuseDatacenterClicks = try c.decodeIfPresent(Bool.self, forKey: .refuseDatacenterClicks) ?? refuseDatacenterClicks
        carrierNATNeedsDeviceSignal =
            try c.decodeIfPresent(Bool.self, forKey: .carrierNATNeedsDeviceSignal) ?? carrierNATNeedsDeviceSignal
        floodClicksPerAddressHour = try c.decodeIfPresent(Int.self, forKey: .floodClicksPerAddressHour) ?? floodClicksPerAddressHour
    }
}
