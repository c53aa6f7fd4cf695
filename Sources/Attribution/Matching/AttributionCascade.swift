/// The whole matching cascade for an install that tier 0 did not recognise (docs/matching.md):
/// the deterministic tier (install referrer, then IDFV, then advertising id), then the
/// probabilistic tier over the same network's clicks, with every window narrowed by the install's
/// own limit. It reads clicks through a `ClickSource` and decides; the caller stores the install and
/// claims the click it names.
public enum AttributionCascade {
    /// Deterministic candidates read per identifier: more than one click per device id is rare.
    static let deterministicCandidates = 20
    /// Clicks read on a referred link: its newest, among which the device's own is looked for.
    static let referredLinkCandidates = 50

    /// - Parameter windowHoursLimit: narrows every click's window for this install (LinkForty's
    ///   `attributionWindowHours`).
    public static func attribute(
        _ install: InstallSignals, windowHoursLimit: Int?, policy: MatchingPolicy,
        clicks: some ClickSource
    ) throws -> MatchResult {
        try evaluate(install, windowHoursLimit: windowHoursLimit, policy: policy, clicks: clicks).result
    }

    /// The same decision, with why each candidate won or lost (`MatchExplanation`), made from the
    /// very candidates the decision was made from.
    public static func attributeExplaining(
        _ install: InstallSignals, windowHoursLimit: Int?, policy: MatchingPolicy,
        clicks: some ClickSource
    ) throws -> (result: MatchResult, explanation: MatchExplanation) {
        let (result, considered) = try evaluate(install, windowHoursLimit: windowHoursLimit, policy: policy, clicks: clicks)
        return (result, MatchExplanation(install: install, considered: considered, result: result, policy: policy))
    }

    /// The candidates each tier read.
    struct Considered {
        var byReferrer: [CandidateClick] = []
        var byReferrerLink: [CandidateClick] = []
        var byIDFV: [CandidateClick] = []
        var byAdvertisingID: [CandidateClick] = []
        var sameNetwork: [CandidateClick] = []
        /// Private Relay taps of the install's region (`InstallSignals.relayRegionKey`).
        var relayRegion: [CandidateClick] = []
        /// Clicks the fraud rules refused, by click id.
        var refused: [String: RejectionReason] = [:]

        /// The candidates with the refused ones left out.
        func screened() -> Considered {
            guard !refused.isEmpty else { return self }
            func kept(_ clicks: [CandidateClick]) -> [CandidateClick] { clicks.filter { refused[$0.clickID] == nil } }
            return Considered(
                byReferrer: kept(byReferrer), byReferrerLink: kept(byReferrerLink), byIDFV: kept(byIDFV),
                byAdvertisingID: kept(byAdvertisingID), sameNetwork: kept(sameNetwork), relayRegion: kept(relayRegion))
        }
    }

    private static func evaluate(
        _ install: InstallSignals, windowHoursLimit: Int?, policy: MatchingPolicy,
        clicks: some ClickSource
    ) throws -> (result: MatchResult, considered: Considered) {
        func limited(_ candidates: [CandidateClick]) -> [CandidateClick] {
            guard let limit = windowHoursLimit else { return candidates }
            return candidates.map {
                var click = $0
                click.windowHours = min(click.windowHours, limit)
                return click
            }
        }
        let oldest = install.time.adding(seconds: -policy.probabilisticHorizonSeconds)
        try clicks.prefetch(reads(for: install, policy: policy))
        let byReferrer = try install.referrerClickID.flatMap { try clicks.click(referredBy: $0) }
        let byReferrerLink = try install.referrerLinkID.map { try clicks.clicks(onLink: $0, limit: referredLinkCandidates) } ?? []
        let byIDFV = try install.idfv.map { try clicks.clicks(idfv: $0, limit: deterministicCandidates) } ?? []
        let byAdvertisingID = try install.advertisingID.map { try clicks.clicks(advertisingID: $0, limit: deterministicCandidates) } ?? []
        var considered = Considered(
            byReferrer: byReferrer.map { limited([$0]) } ?? [], byReferrerLink: limited(byReferrerLink),
            byIDFV: limited(byIDFV), byAdvertisingID: limited(byAdvertisingID))
        screen(&considered, install: install, rules: policy.rules, namedByReferrer: true)
        let (found, deterministicRefusal) = deterministic(considered, install: install)
        if var result = found {
            result.flags = policy.rules.flags(of: result, install: install)
            return (result, considered)
        }
        if let ipKey = install.ipKey {
            considered.sameNetwork = limited(try clicks.clicks(network: ipKey, after: oldest, limit: policy.maxCandidates))
        }
        if let relayKey = relayRead(install) {
            considered.relayRegion = limited(try clicks.clicks(network: relayKey, after: relayOldest(install, policy), limit: policy.maxCandidates))
        }
        screen(&considered, install: install, rules: policy.rules, namedByReferrer: false)
        func decide(_ considered: Considered) -> MatchResult {
            let candidates = considered.sameNetwork + considered.relayRegion
            return candidates.isEmpty ? .organic : MatchingEngine.probabilistic(install: install, candidates: candidates, policy: policy)
        }
        var result = decide(considered.screened())
        // The refused click that would have won without the rules: a deterministic one first.
        if let (clickID, reason) = deterministicRefusal {
            result.rejectedReasons = [reason]
            result.rejectedClickID = clickID
        } else if !considered.refused.isEmpty, let wouldHaveWon = decide(considered).clickID, let reason = considered.refused[wouldHaveWon] {
            result.rejectedReasons = [reason]
            result.rejectedClickID = wouldHaveWon
        }
        result.flags = policy.rules.flags(of: result, install: install)
        return (result, considered)
    }

    /// The deterministic tier over the screened candidates, and why the click it would have chosen
    /// without the fraud rules was refused, if it was: the install then goes on to the
    /// probabilistic tier when no other deterministic click is left.
    private static func deterministic(_ considered: Considered, install: InstallSignals) -> (MatchResult?, (String, RejectionReason)?) {
        func decide(_ considered: Considered) -> MatchResult? {
            MatchingEngine.deterministic(
                install: install, byReferrer: considered.byReferrer.first, byReferrerLink: considered.byReferrerLink,
                byIDFV: considered.byIDFV, byAdvertisingID: considered.byAdvertisingID)
        }
        var result = decide(considered.screened())
        guard !considered.refused.isEmpty, let wouldHaveWon = decide(considered)?.clickID, let reason = considered.refused[wouldHaveWon] else {
            return (result, nil)
        }
        result?.rejectedReasons = [reason]
        result?.rejectedClickID = wouldHaveWon
        return (result, (wouldHaveWon, reason))
    }

    /// Marks the candidates the fraud rules refuse (each click once).
    private static func screen(_ considered: inout Considered, install: InstallSignals, rules: TrafficQualityRules, namedByReferrer: Bool) {
        let lists: [(clicks: [CandidateClick], named: Bool)] =
            namedByReferrer
            ? [(considered.byReferrer + considered.byReferrerLink, true), (considered.byIDFV + considered.byAdvertisingID, false)]
            : [(considered.sameNetwork + considered.relayRegion, false)]
        for (clicks, named) in lists {
            for click in clicks where considered.refused[click.clickID] == nil {
                if let reason = rules.refusal(of: click, for: install, namedByReferrer: named) { considered.refused[click.clickID] = reason }
            }
        }
        if !namedByReferrer {
            for clickID in rules.flooded(considered.sameNetwork) where considered.refused[clickID] == nil {
                considered.refused[clickID] = .clickFlooding
            }
        }
    }

    /// The relay region's key, when it is not the install's own network key.
    static func relayRead(_ install: InstallSignals) -> String? {
        guard let key = install.relayRegionKey, key != install.ipKey else { return nil }
        return key
    }

    static func relayOldest(_ install: InstallSignals, _ policy: MatchingPolicy) -> Timestamp {
        install.time.adding(seconds: -min(policy.relayWindowSeconds, policy.probabilisticHorizonSeconds))
    }

    /// The reads `attribute` makes when no deterministic click matches, in its order.
    public static func reads(for install: InstallSignals, policy: MatchingPolicy) -> [CandidateRead] {
        let oldest = install.time.adding(seconds: -policy.probabilisticHorizonSeconds)
        var reads: [CandidateRead] = []
        if let clickID = install.referrerClickID { reads.append(.referredBy(clickID: clickID)) }
        if let linkID = install.referrerLinkID { reads.append(.onLink(linkID: linkID, limit: referredLinkCandidates)) }
        if let idfv = install.idfv { reads.append(.idfv(idfv, limit: deterministicCandidates)) }
        if let advertisingID = install.advertisingID { reads.append(.advertisingID(advertisingID, limit: deterministicCandidates)) }
        if let ipKey = install.ipKey { reads.append(.network(ipKey: ipKey, after: oldest, limit: policy.maxCandidates)) }
        if let relayKey = relayRead(install) {
            reads.append(.network(ipKey: relayKey, after: relayOldest(install, policy), limit: policy.maxCandidates))
        }
        return reads
    }
}
