public import Attribution

/// Ad spend per project (`cost_rows`, docs/cost.md): rows keyed by day, network, campaign, ad
/// group and ad, a later row of a key replacing the earlier.
public protocol CostStore: Sendable {
    /// Stores every row in one transaction (a row of a stored key replaces it); how many rows
    /// were new, and how many replaced one.
    func save(_ rows: [CostRow], projectID: String, source: String, at time: Timestamp) throws -> (added: Int, replaced: Int)
    /// The project's rows of the days in [since, until] (`YYYY-MM-DD`, both included), by day,
    /// network and campaign.
    func rows(projectID: String, since: String, until: String) throws -> [CostRow]
    /// Whether the project has a row on one of the days in [since, until].
    func hasRows(projectID: String, since: String, until: String) throws -> Bool
    /// The revenue of the installs of [from, to) (milliseconds) by their UTC day, currency and
    /// span after install.
    func acquiredRevenue(projectID: String, from: Int64, to: Int64) throws -> AcquiredRevenue
}

/// What the installs of a period paid in their first 31 days, as the ROAS report sets it beside
/// cost: per link from the `link_cohort_revenue` tallies, per campaign of Apple Ads' and the ad
/// platforms' claims from the claims (test claims left out).
public struct AcquiredRevenue: Sendable, Equatable {
    public struct OfLink: Sendable, Equatable {
        public let linkID: String
        public let money: ROASReport.Revenue
        public init(linkID: String, money: ROASReport.Revenue) {
            self.linkID = linkID
            self.money = money
        }
    }
    public struct OfClaims: Sendable, Equatable {
        /// `NetworkName`'s: `apple_ads`, `google`, `meta`.
        public let network: String
        public let campaignID: String
        /// Empty where the claims carry none.
        public let adGroupID: String
        public let money: ROASReport.Revenue
        public init(network: String, campaignID: String, adGroupID: String = "", money: ROASReport.Revenue) {
            self.network = network
            self.campaignID = campaignID
            self.adGroupID = adGroupID
            self.money = money
        }
    }
    public var links: [OfLink]
    public var claims: [OfClaims]
    /// The payments of the same installs in the same days that were refunded (removed since),
    /// left out of `links` and `claims`.
    public var linkRefunds: [OfLink]
    public var claimRefunds: [OfClaims]
    public init(links: [OfLink] = [], claims: [OfClaims] = [], linkRefunds: [OfLink] = [], claimRefunds: [OfClaims] = []) {
        self.links = links
        self.claims = claims
        self.linkRefunds = linkRefunds
        self.claimRefunds = claimRefunds
    }
}

/// A project's connection to a network's reporting API, and its pull schedule.
public struct CostSourceConnection: Sendable, Equatable {
    public var projectID: String
    public var network: CostNetwork
    public var settings: [String: String]
    public var secrets: [String: String]
    /// How many days before today each pull asks for again.
    public var backfillDays: Int
    public var nextPullAt: Timestamp
    public var lastPulledAt: Timestamp?
    public var lastResult: String?
    public var updatedAt: Timestamp

    public init(
        projectID: String, network: CostNetwork, settings: [String: String], secrets: [String: String], backfillDays: Int, nextPullAt: Timestamp,
        lastPulledAt: Timestamp? = nil, lastResult: String? = nil, updatedAt: Timestamp
    ) {
        self.projectID = projectID
        self.network = network
        self.settings = settings
        self.secrets = secrets
        self.backfillDays = backfillDays
        self.nextPullAt = nextPullAt
        self.lastPulledAt = lastPulledAt
        self.lastResult = lastResult
        self.updatedAt = updatedAt
    }
}

/// The connections to the networks' reporting APIs, and the leases of their pulls: a pull is
/// claimed by one node until its lease runs out, so that two nodes never pull one source at once
/// and a node that dies mid-pull leaves it to another.
public protocol CostSourceStore: Sendable {
    func save(_ connection: CostSourceConnection) throws
    func connection(projectID: String, network: CostNetwork) throws -> CostSourceConnection?
    func connections(projectID: String) throws -> [CostSourceConnection]
    func delete(projectID: String, network: CostNetwork) throws -> Bool
    /// Sources due by `now` whose lease (if any) ran out, at most `limit`.
    func due(at now: Timestamp, limit: Int) throws -> [CostSourceConnection]
    /// Takes the source's lease for `node` until `until` when no other node holds one; whether it did.
    func claim(projectID: String, network: CostNetwork, node: String, until: Timestamp, at now: Timestamp) throws -> Bool
    /// Ends `node`'s lease: the next pull is due at `nextPullAt`, the result noted.
    func finish(projectID: String, network: CostNetwork, node: String, nextPullAt: Timestamp, result: String, at now: Timestamp) throws
}
