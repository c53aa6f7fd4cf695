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

        public init(clickID: String, linkID: String?, clickedAt: Timestamp, foundBy: String, score: Double?, factors: [String], outcome: String) {
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

    public static let limit = 5

    public init(decidedBy: String, minConfidence: Double, considered: Int, candidates: [Candidate]) {
        self.decidedBy = decidedBy
        self.minConfidence = minConfidence
        self.considered = considered
        self.candidates = candidates
    }

    /// Nothing was considered: an organic install with no click from its network or of its ids.
    public var isEmpty: Bool { considered == 0 && claimedByOtherInstalls.isEmpty }

    init(install: InstallSignals, considered: AttributionCascade.Considered, result: MatchResult, policy: MatchingPolicy) {
        if considered.byReferrer.isEmpty, considered.byReferrerLink.isEmpty, considered.byIDFV.isEmpty, considered.byAdvertisingID.isEmpty,
            considered.sameNetwork.isEmpty
        {
            self.init(decidedBy: "none", minConfidence: policy.minConfidence, considered: 0, candidates: [])
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
                let outcome = won ? "won" : !inWindow(click) ? "outside its attribution window" : "not chosen: another click of this tier won"
                listed.append(
                    (
                        won ? 0 : 3,
                        Candidate(
                            clickID: click.clickID, linkID: click.linkID, clickedAt: click.createdAt, foundBy: foundBy,
                            score: won ? 1 : nil, factors: won ? result.matchedFactors : [], outcome: outcome)
                    ))
            }
        }
        // One comparison per candidate; the compatible ones learn their outcome once the newest
        // of them (the engine's winner) is known.
        var comparison = MatchingEngine.Comparison(install)
        var compatible: [Int] = []
        for click in considered.sameNetwork {
            var candidate = Candidate(
                clickID: click.clickID, linkID: click.linkID, clickedAt: click.createdAt, foundBy: "network",
                score: nil, factors: [], outcome: "")
            if click.isAppOpen {
                candidate.outcome = "an in-app open: it can explain only its own device's install"
            } else if !inWindow(click, horizon: policy.probabilisticHorizonSeconds * 1000) {
                candidate.outcome = "outside its attribution window"
            } else {
                switch comparison.compare(with: click) {
                case .disagrees("device_id"):
                    candidate.outcome = "made on another device: its IDFV or advertising id differs"
                case .disagrees(let signal):
                    candidate.outcome = "\(signal) disagrees"
                case .agrees(let factors):
                    candidate.factors = factors
                    candidate.score = MatchingEngine.score(install: install, click: click, factors: factors, policy: policy)
                    compatible.append(listed.count)
                }
            }
            listed.append((4, candidate))
        }
        // The engine's winner: the highest score, the newest of equals.
        let best = compatible.max {
            (listed[$0].candidate.score ?? 0, listed[$0].candidate.clickedAt) < (listed[$1].candidate.score ?? 0, listed[$1].candidate.clickedAt)
        }
        for index in compatible {
            if index == best {
                listed[index].rank = result.attributed ? 0 : 1
                listed[index].candidate.outcome =
                    result.attributed
                    ? "won"
                    : "the best candidate, but \(result.confidence) is below min_confidence \(policy.minConfidence)"
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
    }
}

// The stored and served form: a JSON object with snake_case keys.
extension MatchExplanation {
    /// The stored text. Most new installs had no candidate at all (organic, nothing from their
    /// network): their text is written directly, not through a value tree (init's hot path).
    public var text: String {
        if candidates.isEmpty, claimedByOtherInstalls.isEmpty, (0...1).contains(minConfidence) {
            // Whole numbers as the JSON writer prints them: `1`, not `1.0`.
            let minimum = minConfidence == minConfidence.rounded() ? String(Int(minConfidence)) : String(minConfidence)
            return
                #"{"candidates":[],"candidates_considered":\#(considered),"claimed_by_other_installs":[],"decided_by":"\#(decidedBy)","min_confidence":\#(minimum)}"#
        }
        return String(decoding: json.serialized(), as: UTF8.self)
    }

    /// The explanation of an install that considered nothing, as stored for none (the minimum
    /// confidence of that moment was not kept with it).
    public var emptyText: String {
        #"{"candidates":[],"candidates_considered":0,"claimed_by_other_installs":[],"decided_by":"none"}"#
    }

    public var json: JSONValue {
        .object([
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
                    return .object(fields)
                }),
        ])
    }
}
