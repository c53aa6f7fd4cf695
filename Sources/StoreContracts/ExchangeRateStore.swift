/// Reference rates by day, units of each currency per euro (`fx_rates`, docs/cost.md), shared by
/// every project.
public protocol ExchangeRateStore: Sendable {
    /// Stores the days' rates, each day given replacing what was stored for it; the rates stored.
    func save(_ days: [String: [String: Double]]) throws -> Int
    /// The days in [since, until] and the last day before `since` that has rates (a range's
    /// first days may need it), by day.
    func days(since: String, until: String) throws -> [String: [String: Double]]
}
