import App
import Attribution
import StoreContracts

/// What the cost page shows for a period, loaded without HTML: the spend of each network and
/// campaign over the period's local days, per currency and in the project's currency at each
/// day's reference rates (docs/cost.md), with how many rows had no rate yet. `CostPage` renders it.
struct CostModel {
    struct Campaign: Equatable {
        let network: String
        let campaignID: String
        let campaignName: String
        /// In each row's own currency, summed.
        let spend: [String: Double]
        /// In the project's currency; nil when a row of it has no rate on or before its day.
        let converted: Double?
        let impressions: Int64
        let clicks: Int64
        let days: Int
    }

    let period: DashboardPeriodPage
    /// The first and last local day of the period, `YYYY-MM-DD`.
    let since: String
    let until: String
    /// Most spend first (in the project's currency, then by name).
    let campaigns: [Campaign]
    /// The period's spend in the project's currency, of the rows that could be converted.
    let total: Double
    /// Rows whose currency had no rate on or before their day (left out of `total`).
    let unconverted: Int
    /// Rows converted at an earlier day's rates (a weekend, a holiday).
    let stale: Int

    var project: Project { period.project }
    var currency: String { period.project.settings.reportingCurrency }

    static func load(_ period: DashboardPeriodPage, services: Services) throws -> CostModel {
        let calendar = period.calendar
        let since = calendar.dateText(period.range.since)
        let until = calendar.dateText(period.range.until.adding(seconds: -1))
        let rows = try services.app.costs.rows(project: period.project, since: since, until: until)
        let rates = try services.app.exchangeRates.rates(since: since, until: until)
        let currency = period.project.settings.reportingCurrency
        struct Key: Hashable { let network: String, campaign: String }
        var grouped: [Key: [CostRow]] = [:]
        var order: [Key] = []
        for row in rows {
            let key = Key(network: row.network, campaign: row.campaignKey)
            if grouped[key] == nil { order.append(key) }
            grouped[key, default: []].append(row)
        }
        var total = 0.0
        var unconverted = 0
        var stale = 0
        var campaigns: [Campaign] = []
        for key in order {
            let group = grouped[key]!
            var spend: [String: Double] = [:]
            var converted: Double? = 0
            var days = Set<String>()
            for row in group {
                spend[row.currency, default: 0] += row.spend
                days.insert(row.day)
                if let amount = rates.convert(row.spend, from: row.currency, to: currency, on: row.day) {
                    converted = converted.map { $0 + amount.amount }
                    total += amount.amount
                    if amount.isStale { stale += 1 }
                } else {
                    converted = nil
                    unconverted += 1
                }
            }
            let latest = group.last!
            campaigns.append(
                Campaign(
                    network: key.network, campaignID: latest.campaignID, campaignName: latest.campaignName, spend: spend, converted: converted,
                    impressions: group.reduce(0) { $0 + ($1.impressions ?? 0) }, clicks: group.reduce(0) { $0 + ($1.clicks ?? 0) },
                    days: days.count))
        }
        campaigns.sort { ($0.converted ?? -1, $1.network, $1.campaignName) > ($1.converted ?? -1, $0.network, $0.campaignName) }
        return CostModel(
            period: period, since: since, until: until, campaigns: campaigns, total: total, unconverted: unconverted, stale: stale)
    }
}
