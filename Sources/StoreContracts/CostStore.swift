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
        public let money: ROASReport.Revenue
        public init(network: String, campaignID: String, money: ROASReport.Revenue) {
            self.network = network
            self.campaignID = campaignID
            self.money = money
        }
    }
    public var links: [OfLink]
    public var claims: [OfClaims]
    public init(links: [OfLink] = [], claims: [OfClaims] = []) {
        self.links = links
        self.claims = claims
    }
}
