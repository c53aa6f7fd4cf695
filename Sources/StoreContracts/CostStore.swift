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
}
