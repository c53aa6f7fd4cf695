public import JSON

/// What happened to an install's attribution after its match was recorded, told beside the
/// recorded explanation: a claim that took the install (Apple Ads), and the clicks from its
/// network that other installs had claimed before it came ("why not that tap?").
public struct ExplanationAnnotations: Sendable, Equatable {
    /// A claim from outside our matching (Apple Ads' AdServices answer).
    public struct Claim: Sendable, Equatable {
        public var source: String
        public var status: String
        /// Whether it became the install's attribution.
        public var won: Bool
        public var campaignID: String?

        public init(source: String, status: String, won: Bool, campaignID: String?) {
            self.source = source
            self.status = status
            self.won = won
            self.campaignID = campaignID
        }
    }

    /// A click from the install's network that another install claimed before this one came.
    public struct ClaimedClick: Sendable, Equatable {
        public var clickID: String
        public var installID: String
        public var clickedAt: Timestamp

        public init(clickID: String, installID: String, clickedAt: Timestamp) {
            self.clickID = clickID
            self.installID = installID
            self.clickedAt = clickedAt
        }
    }

    public var claims: [Claim] = []
    public var claimedEarlier: [ClaimedClick] = []

    public init(claims: [Claim] = [], claimedEarlier: [ClaimedClick] = []) {
        self.claims = claims
        self.claimedEarlier = claimedEarlier
    }

    /// The explanation's fields with these applied: a winning claim decides (`decided_by` names
    /// it, and the click recorded as won is marked overtaken); a claim that did not win says why;
    /// clicks claimed earlier are listed with the install that has them.
    public func applied(to explanation: [String: JSONValue]) -> [String: JSONValue] {
        var fields = explanation
        if let winner = claims.first(where: \.won) {
            fields["decided_by"] = .string(winner.source)
            if case .array(let candidates)? = fields["candidates"] {
                fields["candidates"] = .array(
                    candidates.map { candidate in
                        guard case .object(var object) = candidate, object["outcome"] == .string("won") else { return candidate }
                        object["outcome"] = .string("overtaken: the \(winner.source) claim took the install")
                        return .object(object)
                    })
            }
        }
        if !claims.isEmpty {
            fields["claims"] = .array(
                claims.map { claim in
                    var object: [String: JSONValue] = [
                        "source": .string(claim.source), "status": .string(claim.status), "won": .bool(claim.won),
                        "outcome": .string(Self.outcome(of: claim)),
                    ]
                    if let campaign = claim.campaignID { object["campaign_id"] = .string(campaign) }
                    return .object(object)
                })
        }
        fields["claimed_earlier"] = .array(
            claimedEarlier.map {
                .object([
                    "click_id": .string($0.clickID), "clicked_at": .string($0.clickedAt.iso8601), "install_id": .string($0.installID),
                    "outcome": .string("claimed by another install before this one came"),
                ])
            })
        return fields
    }

    public static func outcome(of claim: Claim) -> String {
        if claim.won { return "won: it decided the install's attribution" }
        switch claim.status {
        case "pending": return "pending: the network has not answered yet"
        case "attributed": return "not chosen: a link touch after it decided"
        case "not_attributed": return "the network does not attribute this install"
        default: return "failed: the network could not be asked"
        }
    }
}
