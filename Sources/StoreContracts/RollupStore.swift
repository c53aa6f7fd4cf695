/// The rollups compared with, or replaced by, a recount of the rows they count (`attributiond
/// rollups check` / `rebuild`): for rows changed by hand with `sqlite3` or `psql`, which no
/// counting rule sees.
public protocol RollupStore: Sendable {
    /// The rows that differ, one line each ("table key: column stored ≠ recounted"), at most
    /// `limit`; `differing` counts them all. Hours before `sinceHour` are not compared.
    func check(projectID: String?, sinceHour: Int64, limit: Int) throws -> (lines: [String], differing: Int)
    /// Replaces the rollups from the day of `sinceHour` on with the recount, in one transaction;
    /// returns the rows written.
    @discardableResult
    func rebuild(projectID: String?, sinceHour: Int64) throws -> Int
}
