public import JSON

/// Why an install was attributed as it was: which tier decided, and the candidate clicks that were
/// considered, each with its score and factors and why it won or lost. Made in the install's own
/// transaction from the candidates the decision was made from (never re-derived later, when clicks
/// have been claimed or pruned), and kept small: at most `limit` candidates, the best first.
public struct MatchExplanation: Sendable, Equatable {
    public struct Candidate: Sendable, Equatable {
        public var clickID: String
        public var linkID: String?
        public var clickedAt: Timestamp
        /// How the candidate was found: `install_referrer`, `idfv`, `advertising_id`, `network`.
        public var foundBy: String
        /// The confidence its age and signals give it (before the penalty for other candidates),
        /// when it was compatible.
        public var score: Double?
        public var factors: [String]
        public var outcome: String
        /// The class of the click's address, when it has one (`AddressClass`).
        public var addressClass: String? = nil

        public init(
            clickID: String, linkID: String?, clickedAt: Timestamp, foundBy: String, score: Double?, factors: [String], outcome: String,
            addressClass: String? = nil
        ) {
            self.addressClass = addressClass
            self.clickID = clickID
            self.linkID = linkID
            self.clickedAt = clickedAt
            self.foundBy = foundBy
            self.score = score
            self.factors = factors
            self.outcome = outcome
        }
    }

    /// `install_referrer`, `idfv`, `advertising_id`, `probabilistic`, or `none` (organic).
    public var decidedBy: String
    public var minConfidence: Double
    /// How many candidates were considered in all (more than are listed, when many).
    public var considered: Int
    public var candidates: [Candidate]
    /// Clicks this install would have taken that another install claimed first, meanwhile.
    public var claimedByOtherInstalls: [String] = []
    /// The class of the install's own address, when it has one.
    public var installAddressClass: String? = nil
    /// Why the click that would have won was refused (`RejectionReason`).
    public var rejectedReasons: [String] = []

    public static let limit = 5

    public init(decidedBy: String, minConfidence: Double, considered: Int, candidates: [Candidate]) {
        self.decidedBy = decidedBy
        self.minConfidence = minConfidence
        self.considered = considered
        self.candidates = candidates
    }

    /// Nothing was considered: an organic install with no click from its network or of its ids.
    public var isEmpty: Bool { considered == 0 && claimedByOtherInstalls.isEmpty && installAddressClass == nil }

    init(install: InstallSignals, considered: AttributionCascade.Considered, result: MatchResult, policy: MatchingPolicy) {
        if considered.byReferrer.isEmpty, considered.byReferrerLink.isEmpty, considered.byIDFV.isEmpty, considered.byAdvertisingID.isEmpty,
            considered.sameNetwork.isEmpty, considered.relayRegion.isEmpty
        {
            self.init(decidedBy: "none", minConfidence: policy.minConfidence, considered: 0, candidates: [])
            installAddressClass = install.addressClass?.rawValue
            return
        }
        func inWindow(_ click: CandidateClick, horizon: Int64? = nil) -> Bool {
            let age = install.time.milliseconds - click.createdAt.milliseconds
            let window = min(Int64(click.windowHours) * 3_600_000, horizon ?? .max)
            return age >= 0 && age < window
        }
        var listed: [(rank: Int, candidate: Candidate)] = []
        let deterministic: [(String, [CandidateClick])] = [
            ("install_referrer", considered.byReferrer + considered.byReferrerLink),
            ("idfv", considered.byIDFV), ("advertising_id", considered.byAdvertisingID),
        ]
        for (foundBy, clicks) in deterministic {
            for click in clicks {
                let won = result.clickID == click.clickID && result.matchType == .deterministic
                let outcome =
                    won
                    ? "won"
                    : !inWindow(click)
                        ? "outside its attribution window"
                        : considered.refused[click.clickID].map(Self.refusedOutcome) ?? "not chosen: another click of this tier won"
                listed.append(
                    (
                        won ? 0 : 3,
                        Candidate(
                            clickID: click.clickID, linkID: click.linkID, clickedAt: click.createdAt, foundBy: foundBy,
                            score: won ? 1 : nil, factors: won ? result.matchedFactors : [], outcome: outcome,
                            addressClass: click.addressClass?.rawValue)
                    ))
            }
        }
        // One comparison per candidate; the compatible ones learn their outcome once the newest
        // of them (the engine's winner) is known.
        var comparison = MatchingEngine.Comparison(install, rules: policy.rules)
        var compatible: [Int] = []
        let probabilistic =
            considered.sameNetwork.map { (click: $0, foundBy: "network") }
            + considered.relayRegion.map { (click: $0, foundBy: "private_relay_region") }
        for (click, foundBy) in probabilistic {
            var candidate = Candidate(
                clickID: click.clickID, linkID: click.linkID, clickedAt: click.createdAt, foundBy: foundBy,
                score: nil, factors: [], outcome: "")
            if click.isAppOpen {
                candidate.outcome = "an in-app open: it can explain only its own device's install"
            } else if !inWindow(click, horizon: MatchingEngine.horizonMilliseconds(click, policy: policy)) {
                candidate.outcome = click.isRelayed ? "tap came through Private Relay: older than the relay window" : "outside its attribution window"
            } else if let reason = considered.refused[click.clickID] {
                candidate.outcome = Self.refusedOutcome(reason)
            } else {
                switch comparison.compare(with: click) {
                case .disagrees("device_id"):
                    candidate.outcome = "made on another device: its IDFV or advertising id differs"
                case .disagrees(MatchingEngine.Comparison.relayWithoutDeviceSignals):
                    candidate.outcome = "tap came through Private Relay: address not used, and screen and time zone did not both agree"
                case .disagrees(MatchingEngine.Comparison.carrierNATWithoutDeviceSignal):
                    candidate.outcome = "carrier NAT address: shared by the carrier's users, and neither screen nor time zone agreed"
                case .disagrees(let signal):
                    candidate.outcome = "\(signal) disagrees"
                case .agrees(let factors):
                    candidate.factors = factors
                    candidate.score = MatchingEngine.score(install: install, click: click, factors: factors, policy: policy)
                    compatible.append(listed.count)
                }
            }
            candidate.addressClass = click.addressClass?.rawValue
            listed.append((4, candidate))
        }
        // The engine's winner: the highest score, the newest of equals.
        let best = compatible.max {
            (listed[$0].candidate.score ?? 0, listed[$0].candidate.clickedAt) < (listed[$1].candidate.score ?? 0, listed[$1].candidate.clickedAt)
        }
        for index in compatible {
            if index == best {
                listed[index].rank = result.attributed ? 0 : 1
                let relayNote = considered.relayRegion.contains { $0.clickID == listed[index].candidate.clickID } ? Self.relayNote : ""
                listed[index].candidate.outcome =
                    result.attributed
                    ? "won" + relayNote
                    : "the best candidate, but \(result.confidence) is below min_confidence \(policy.minConfidence)" + relayNote
            } else {
                listed[index].rank = 2
                listed[index].candidate.outcome = "compatible, but another compatible click scored higher or was as good and newer"
            }
        }
        let decided: String
        switch result.matchType {
        case .deterministic: decided = result.matchedFactors.first ?? "deterministic"
        case .probabilistic: decided = result.attributed ? "probabilistic" : "none"
        case .none: decided = "none"
        }
        self.init(
            decidedBy: decided, minConfidence: policy.minConfidence, considered: listed.count,
            candidates: Array(
                listed.sorted { ($0.rank, $1.candidate.clickedAt) < ($1.rank, $0.candidate.clickedAt) }
                    .prefix(Self.limit).map(\.candidate)))
        installAddressClass = install.addressClass?.rawValue
        rejectedReasons = result.rejectedReasons.map(\.rawValue)
    }

    static let relayNote = " (tap came through Private Relay: address not used; region, screen and time zone agreed)"

    static func refusedOutcome(_ reason: RejectionReason) -> String {
        switch reason {
        case .clickInjection: "refused: click_injection (made after Play's install_begin_timestamp)"
        case .referrerTimeMismatch: "refused: referrer_time_mismatch (Play's referrer_click_timestamp is another time)"
        case .datacenterClick: "refused: datacenter_click (a hosting address)"
        case .clickFlooding: "refused: click_flooding (more clicks from its address within an hour than flood_clicks_per_address_hour)"
        }
    }
}

// The stored and served form: a JSON object with snake_case keys.
extension MatchExplanation {
    /// The stored text. Most new installs had no candidate at all (organic, nothing from their
    /// network): their text is written directly, not through a value tree (init's hot path).
    public var text: String {
        if candidates.isEmpty, claimedByOtherInstalls.isEmpty, rejectedReasons.isEmpty, (0...1).contains(minConfidence),
            installAddressClass.map(AddressClass.isValidName) ?? true
        {
            // Whole numbers as the JSON writer prints them: `1`, not `1.0`. A class name needs no
            // escaping (`AddressClass.isValidName`), and its key sorts before `min_confidence`.
            let minimum = minConfidence == minConfidence.rounded() ? String(Int(minConfidence)) : String(minConfidence)
            let addressClass = installAddressClass.map { #","install_address_class":"\#($0)""# } ?? ""
            return
                #"{"candidates":[],"candidates_considered":\#(considered),"claimed_by_other_installs":[],"decided_by":"\#(decidedBy)"\#(addressClass),"min_confidence":\#(minimum)}"#
        }
        return String(decoding: json.serialized(), as: UTF8.self)
    }

    /// The explanation of an install that considered nothing, as stored for none (the minimum
    /// confidence of that moment was not kept with it).
    public var emptyText: String {
        #"{"candidates":[],"candidates_considered":0,"claimed_by_other_installs":[],"decided_by":"none"}"#
    }

    public var json: JSONValue {
        var fields = baseFields
        if let installAddressClass { fields["install_address_class"] = .string(installAddressClass) }
        if !rejectedReasons.isEmpty { fields["rejected_reasons"] = .array(rejectedReasons.map(JSONValue.string)) }
        return .object(fields)
    }

    private var baseFields: [String: JSONValue] {
        [
            "decided_by": .string(decidedBy), "min_confidence": .number(minConfidence), "candidates_considered": .number(Double(considered)),
            "claimed_by_other_installs": .array(claimedByOtherInstalls.map(JSONValue.string)),
            "candidates": .array(
                candidates.map { candidate in
                    var fields: [String: JSONValue] = [
                        "click_id": .string(candidate.clickID), "clicked_at": .string(candidate.clickedAt.iso8601),
                        "found_by": .string(candidate.foundBy), "factors": .array(candidate.factors.map(JSONValue.string)),
                        "outcome": .string(candidate.outcome),
                    ]
                    fields["link_id"] = candidate.linkID.map(JSONValue.string) ?? .null
                    fields["score"] = candidate.score.map(JSONValue.number) ?? .null
                    if let addressClass = candidate.addressClass { fields["address_class"] = .string(addressClass) }
                    return .object(fields)
                }),
        ]
    }
}
