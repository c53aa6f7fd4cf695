/// The outcome of matching one install, stored with it and never recomputed.
public struct MatchResult: Sendable, Equatable {
    public enum MatchType: String, Sendable { case deterministic, probabilistic, none }

    public var matchType: MatchType
    public var attributed: Bool
    /// 0…1.
    public var confidence: Double
    public var matchedFactors: [String]
    /// The click that attributed the install (only when `attributed`).
    public var clickID: String?
    public var linkID: String?
    public var clickedAt: Timestamp?
    /// Why the click that would have won was refused (then the install went to the next
    /// candidate, or stayed organic).
    public var rejectedReasons: [RejectionReason] = []
    /// The refused click (with `rejectedReasons`).
    public var rejectedClickID: String? = nil
    /// What the attributed install is flagged for (it keeps its attribution).
    public var flags: [QualityFlag] = []

    public init(
        matchType: MatchType, attributed: Bool, confidence: Double, matchedFactors: [String], clickID: String? = nil,
        linkID: String? = nil, clickedAt: Timestamp? = nil
    ) {
        self.matchType = matchType
        self.attributed = attributed
        self.confidence = confidence
        self.matchedFactors = matchedFactors
        self.clickID = clickID
        self.linkID = linkID
        self.clickedAt = clickedAt
    }

    public static let organic = MatchResult(matchType: .none, attributed: false, confidence: 0, matchedFactors: [])
}

/// Deterministic tier, then probabilistic tier (docs/matching.md). Pure: callers read the
/// clicks and claim the winner; this only decides.
public enum MatchingEngine {
    /// Tier 1: the first click found by install referrer (its click id, else its link's clicks),
    /// then idfv, then advertising id, that is inside its link's attribution window and made
    /// before the install.
    public static func deterministic(
        install: InstallSignals, byReferrer: CandidateClick?, byReferrerLink: [CandidateClick] = [],
        byIDFV: [CandidateClick], byAdvertisingID: [CandidateClick]
    ) -> MatchResult? {
        func eligible(_ clicks: [CandidateClick]) -> [CandidateClick] {
            clicks.filter { click in
                let age = install.time.milliseconds - click.createdAt.milliseconds
                return age >= 0 && age < Int64(click.windowHours) * 3_600_000
            }
        }
        func result(_ click: CandidateClick, _ factor: String) -> MatchResult {
            MatchResult(
                matchType: .deterministic, attributed: true, confidence: 1.0, matchedFactors: [factor],
                clickID: click.clickID, linkID: click.linkID, clickedAt: click.createdAt)
        }
        if let click = eligible(byReferrer.map { [$0] } ?? []).first { return result(click, "install_referrer") }
        if let click = referredLinkClick(install: install, among: eligible(byReferrerLink)) { return result(click, "install_referrer") }
        for (clicks, factor) in [(byIDFV, "idfv"), (byAdvertisingID, "advertising_id")] {
            if let click = eligible(clicks).max(by: { $0.createdAt < $1.createdAt }) { return result(click, factor) }
        }
        return nil
    }

    /// The link is certain (the store handed its id back); which of its clicks was this device's
    /// is not. Preferred: a click from the install's network whose signals agree, then one whose
    /// signals agree, then any; the newest of the best.
    /// App-side opens and clicks of another device are not this device's tap on the link.
    static func referredLinkClick(install: InstallSignals, among clicks: [CandidateClick]) -> CandidateClick? {
        var comparison = Comparison(install)
        return clicks.filter { !$0.isAppOpen && !deviceDiffers(install, $0) }.map { click -> (click: CandidateClick, rank: Int) in
            let sameNetwork = install.ipKey != nil && click.ipKey == install.ipKey
            return (click, (sameNetwork ? 2 : 0) + (comparison.agreement(with: click) != nil ? 1 : 0))
        }.max { ($0.rank, $0.click.createdAt) < ($1.rank, $1.click.createdAt) }?.click
    }

    /// Tier 2 over `candidates` (same project and IP key, not bots, unclaimed — as read by the store).
    public static func probabilistic(install: InstallSignals, candidates: [CandidateClick], policy: MatchingPolicy) -> MatchResult {
        // Most installs are organic with no click from their network: skip normalizing the
        // install's signals for nothing.
        guard !candidates.isEmpty else { return .organic }
        var compatible: [(click: CandidateClick, factors: [String])] = []
        var comparison = Comparison(install, rules: policy.rules)
        for click in candidates where !click.isAppOpen {
            let ageMilliseconds = install.time.milliseconds - click.createdAt.milliseconds
            guard ageMilliseconds >= 0, ageMilliseconds < horizonMilliseconds(click, policy: policy) else { continue }
            if let factors = comparison.agreement(with: click) { compatible.append((click, factors)) }
        }
        let scored = compatible.map {
            (click: $0.click, factors: $0.factors, score: score(install: install, click: $0.click, factors: $0.factors, policy: policy))
        }
        guard let winner = best(scored) else { return .organic }
        let groups = candidateGroups(compatible.map(\.click))
        let confidence = max(0, rounded(winner.score - policy.candidatePenalty * Double(groups - 1)))
        let attributed = confidence >= policy.minConfidence && confidence > 0
        return MatchResult(
            matchType: .probabilistic, attributed: attributed, confidence: confidence,
            matchedFactors: winner.factors, clickID: attributed ? winner.click.clickID : nil,
            linkID: attributed ? winner.click.linkID : nil, clickedAt: attributed ? winner.click.createdAt : nil)
    }

    /// A compatible click's score before the penalty for other candidates: its age's decay step,
    /// capped when neither screen nor time zone agreed (a beacon-less redirect).
    static func score(install: InstallSignals, click: CandidateClick, factors: [String], policy: MatchingPolicy) -> Double {
        let age = Double(install.time.milliseconds - click.createdAt.milliseconds) / 1000
        var score = policy.baseConfidence(ageSeconds: age) ?? 0
        if !factors.contains("screen"), !factors.contains("timezone") { score = min(score, policy.confidenceWithoutDeviceSignals) }
        if click.isRelayed { score = min(score, policy.relayConfidence) }
        return score
    }

    /// How old a probabilistic candidate may be: its window, the policy's horizon, and for a
    /// Private Relay tap the relay window (its region is shared by many).
    static func horizonMilliseconds(_ click: CandidateClick, policy: MatchingPolicy) -> Int64 {
        let horizon = min(Int64(click.windowHours) * 3_600_000, policy.probabilisticHorizonSeconds * 1000)
        return click.isRelayed ? min(horizon, policy.relayWindowSeconds * 1000) : horizon
    }

    /// The winner among scored compatible clicks: the highest score, the newest of equals. The
    /// newest alone let a beacon-less redirect 0.3 s after a full-signal tap take the install at
    /// 0.50 over the tap's 0.85.
    static func best(_ scored: [(click: CandidateClick, factors: [String], score: Double)]) -> (
        click: CandidateClick, factors: [String], score: Double
    )? {
        scored.max { ($0.score, $0.click.createdAt) < ($1.score, $1.click.createdAt) }
    }

    /// How many people the compatible clicks stand for: repeated clicks from one browser are one,
    /// and a browser's beacon-less click (no screen, no zone: a redirect before the page ran) is
    /// the same browser as its beaconed click with the same User-Agent.
    static func candidateGroups(_ clicks: [CandidateClick]) -> Int {
        let beaconed = Set(clicks.filter { $0.screen != nil || $0.timezone != nil }.map(\.userAgent))
        return Set(
            clicks.compactMap { click in
                click.screen == nil && click.timezone == nil && beaconed.contains(click.userAgent) ? nil : BrowserKey(click)
            }
        ).count
    }

    /// The matched factors when no signal both sides have disagrees; nil when one does.
    static func agreement(install: InstallSignals, click: CandidateClick) -> [String]? {
        var comparison = Comparison(install)
        return comparison.agreement(with: click)
    }

    /// One install compared with many clicks: its own values are normalised once, and the clicks'
    /// (few distinct OS versions and language lists among hundreds of candidates) are memoised.
    struct Comparison {
        let install: InstallSignals
        let installVersion: String?
        let installLanguages: Set<String>
        var clickVersions: [String: String?] = [:]
        var clickLanguages: [[String]: Set<String>] = [:]

        /// `TrafficQualityRules.carrierNATNeedsDeviceSignal`.
        let carrierNATNeedsDeviceSignal: Bool

        init(_ install: InstallSignals, rules: TrafficQualityRules = TrafficQualityRules()) {
            self.install = install
            carrierNATNeedsDeviceSignal = rules.carrierNATNeedsDeviceSignal
            installVersion = Normalize.majorMinor(install.osVersion)
            installLanguages = Normalize.primaryLanguages(install.languages)
        }

        mutating func agreement(with click: CandidateClick) -> [String]? {
            if case .agrees(let factors) = compare(with: click) { return factors }
            return nil
        }

        static let relayWithoutDeviceSignals = "private_relay_without_device_signals"
        static let carrierNATWithoutDeviceSignal = "carrier_nat_without_device_signal"

        /// The matched factors, or the first signal both sides have that disagrees.
        enum Outcome: Equatable {
            case agrees([String])
            case disagrees(String)
        }

        mutating func compare(with click: CandidateClick) -> Outcome {
            if MatchingEngine.deviceDiffers(install, click) { return .disagrees("device_id") }
            let relayed = click.isRelayed
            var factors = [relayed ? "region" : "ip"]
            if let a = install.platform, let b = click.platform {
                guard a == b else { return .disagrees("platform") }
                factors.append("platform")
            }
            if let a = installVersion, let version = click.osVersion {
                let b: String?
                if let known = clickVersions[version] {
                    b = known
                } else {
                    b = Normalize.majorMinor(version)
                    clickVersions[version] = b
                }
                if let b {
                    guard a == b else { return .disagrees("os_version") }
                    factors.append("os_version")
                }
            }
            if let a = install.deviceClass, let b = click.deviceClass {
                guard a == b else { return .disagrees("device") }
                factors.append("device")
            }
            if let a = install.screen, let b = click.screen {
                guard a.matches(b) else { return .disagrees("screen") }
                factors.append("screen")
            } else if install.screen == nil, let a = install.screenPoints, let b = click.screenPoints {
                guard a.matches(b) else { return .disagrees("screen") }
                factors.append("screen")
            }
            if let agrees = MatchingEngine.timezoneAgreement(install: install, click: click) {
                guard agrees else { return .disagrees("timezone") }
                factors.append("timezone")
            }
            if !installLanguages.isEmpty, !click.languages.isEmpty {
                let languages: Set<String>
                if let known = clickLanguages[click.languages] {
                    languages = known
                } else {
                    languages = Normalize.primaryLanguages(click.languages)
                    clickLanguages[click.languages] = languages
                }
                if !languages.isEmpty {
                    guard !installLanguages.isDisjoint(with: languages) else { return .disagrees("language") }
                    factors.append("language")
                }
            }
            // A shared address says little: a relay tap's region is all its address tells, and a
            // carrier gateway's address is its users' in common.
            let screen = factors.contains("screen")
            let zone = factors.contains("timezone")
            if relayed {
                guard screen, zone else { return .disagrees(Self.relayWithoutDeviceSignals) }
            } else if carrierNATNeedsDeviceSignal, install.addressClass == .carrierNAT || click.addressClass == .carrierNAT {
                guard screen || zone else { return .disagrees(Self.carrierNATWithoutDeviceSignal) }
            }
            return .agrees(factors)
        }
    }

    /// Whether the click carries a device identifier that the install has with another value:
    /// then it was made on another device, whatever else agrees.
    static func deviceDiffers(_ install: InstallSignals, _ click: CandidateClick) -> Bool {
        func differ(_ a: String?, _ b: String?) -> Bool {
            guard let a, let b else { return false }
            return a != b && a.lowercased() != b.lowercased()
        }
        return differ(install.idfv, click.idfv) || differ(install.advertisingID, click.advertisingID)
    }

    /// Zone ids when both have one; else UTC offsets (a zone's offset taken at its side's time).
    static func timezoneAgreement(install: InstallSignals, click: CandidateClick) -> Bool? {
        if let a = install.timezone, let b = click.timezone { return a == b }
        let installOffset = install.utcOffsetMinutes ?? install.timezone.flatMap { Normalize.utcOffset(of: $0, at: install.time) }
        let clickOffset = click.utcOffsetMinutes ?? click.timezone.flatMap { Normalize.utcOffset(of: $0, at: click.createdAt) }
        guard let installOffset, let clickOffset else { return nil }
        return installOffset == clickOffset
    }

    /// Avoids 0.85 − 0.15 printing as 0.7000000000000001.
    static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }

    struct BrowserKey: Hashable {
        let userAgent: String?
        let screen: ScreenSize?
        let timezone: String?
        let languages: [String]
        init(_ click: CandidateClick) {
            userAgent = click.userAgent
            screen = click.screen
            timezone = click.timezone
            languages = click.languages
        }
    }
}
