public import Attribution
import StoreContracts

/// Reference rates (docs/cost.md, "Currencies"): imported from the ECB's files or given in their
/// shape, and the rates a range of days is converted at.
public struct ExchangeRateService: Sendable {
    let store: any StoreBackend

    /// Stores the file's days, each replacing what was stored for it: how many days and rates.
    public func importECB(_ bytes: [UInt8]) throws -> (days: Int, rates: Int) {
        switch ECBRates.days(bytes) {
        case .failure(let refused): throw AppError(refused)
        case .success(let days):
            return (days.count, try store.exchangeRates.save(days))
        }
    }

    /// The rates that convert amounts of the days in [since, until] (`YYYY-MM-DD`).
    public func rates(since: String, until: String) throws -> ExchangeRates {
        ExchangeRates(try store.exchangeRates.days(since: since, until: until))
    }

    /// The rates of `day`, or of the last day before it that has them.
    public func rates(on day: String) throws -> (day: String, rates: [String: Double])? {
        guard CostCSV.isDay(day) else { throw AppError.invalidField("day", "must be a day as YYYY-MM-DD") }
        return try rates(since: day, until: day).rates(on: day)
    }
}
