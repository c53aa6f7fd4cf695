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
        if let result = MatchingEngine.deterministic(
            install: install, byReferrer: considered.byReferrer.first,
            byReferrerLink: considered.byReferrerLink,
            byIDFV: considered.byIDFV, byAdvertisingID: considered.byAdvertisingID)
        {
            return (result, considered)
        }
        guard let ipKey = install.ipKey else { return (.organic, considered) }
        considered.sameNetwork = limited(try clicks.clicks(network: ipKey, after: oldest, limit: policy.maxCandidates))
        return (MatchingEngine.probabilistic(install: install, candidates: considered.sameNetwork, policy: policy), considered)
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
        return reads
    }
}
