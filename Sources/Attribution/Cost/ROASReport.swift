/// Return on ad spend for a period, per network and campaign (docs/cost.md, "ROAS"): what the
/// networks spent on the days of the period beside the installs of those days we credited to
/// their campaigns, and what those installs paid in their first days, all in one reporting
/// currency at each day's rates. Pure: the store reads the cost rows and what each of our sources
/// credited; this joins and converts them.
public struct ROASReport: Sendable, Equatable {
    public enum Grouping: String, Sendable, CaseIterable {
        case network, campaign
    }

    /// The days after install the report's revenue columns reach: revenue by the end of day n.
    public static let revenueDays: [Int64] = [0, 7, 30]

    /// Installs one of our sources credited to one campaign (a link's UTM source and campaign, an
    /// Apple Ads campaign, an ad platform's campaign), with their revenue.
    public struct Acquired: Sendable, Equatable {
        /// `NetworkName.normalized`.
        public var network: String
        /// The id the claims carry, or the link's `utm_campaign` (which may be an id or a name).
        public var campaignID: String
        public var campaignName: String
        public var installs: Int
        public var payingInstalls: Int
        public var revenue: [Revenue]
        /// Their payments of the same days refunded since (not in `revenue`).
        public var refunds: [Revenue]

        public init(
            network: String, campaignID: String, campaignName: String, installs: Int, payingInstalls: Int, revenue: [Revenue] = [],
            refunds: [Revenue] = []
        ) {
            self.network = network
            self.campaignID = campaignID
            self.campaignName = campaignName
            self.installs = installs
            self.payingInstalls = payingInstalls
            self.revenue = revenue
            self.refunds = refunds
        }
    }

    /// Money of installs of one day, by the span after install it came in.
    public struct Revenue: Sendable, Equatable {
        /// The installs' day (`YYYY-MM-DD`, UTC): the day whose rates convert it.
        public var day: String
        public var currency: String
        /// The last day of its span (`EventTallies.span`).
        public var span: Int64
        public var amount: Double

        public init(day: String, currency: String, span: Int64, amount: Double) {
            self.day = day
            self.currency = currency
            self.span = span
            self.amount = amount
        }
    }

    public struct Row: Sendable, Equatable {
        public var network: String
        /// Empty in a report by network.
        public var campaignID = ""
        public var campaignName = ""
        /// Whether the network reported cost for it, and whether we credited installs to it:
        /// cost of a campaign none of ours names is shown, never dropped.
        public var hasCost = false
        public var hasInstalls = false
        public var spend = 0.0
        public var impressions: Int64 = 0
        public var clicks: Int64 = 0
        public var installs = 0
        public var payingInstalls = 0
        /// Day n (`revenueDays`) → revenue by its end.
        public var revenue: [Int64: Double] = [:]
        /// What the installs paid in their first 31 days and was refunded since.
        public var refunds = 0.0
        /// Our campaigns (`Acquired.campaignID`) the row holds: the overview finds a UTM
        /// campaign's row by them.
        public var ours: Set<String> = []

        public init(network: String) { self.network = network }

        public var cpi: Double? { hasCost && installs > 0 ? spend / Double(installs) : nil }
        /// Revenue by the end of day n over spend; nil without spend.
        public func roas(_ day: Int64) -> Double? { spend > 0 ? (revenue[day] ?? 0) / spend : nil }

        mutating func add(_ other: Row) {
            hasCost = hasCost || other.hasCost
            hasInstalls = hasInstalls || other.hasInstalls
            spend += other.spend
            impressions += other.impressions
            clicks += other.clicks
            installs += other.installs
            payingInstalls += other.payingInstalls
            refunds += other.refunds
            ours.formUnion(other.ours)
            for (day, amount) in other.revenue { revenue[day, default: 0] += amount }
        }
    }

    public var currency: String
    public var rows: [Row]
    public var totals: Row
    /// Days whose amounts were converted at an earlier day's rates (none published for them).
    public var staleRateDays: [String]
    /// Amounts no rate up to their day converts, by currency: left out of the figures, and said so.
    public var unconverted: [String: Double]

    /// `cost`: the rows of the period's days; `acquired`: what our sources credited to installs
    /// of those days; `projectCurrency`: what '' (an amount that named no currency) means.
    public static func build(
        cost: [CostRow], acquired: [Acquired], rates: ExchangeRates, currency: String, projectCurrency: String, by grouping: Grouping
    ) -> ROASReport {
        var stale: Set<String> = []
        var unconverted: [String: Double] = [:]
        func converted(_ amount: Double, _ from: String, _ day: String) -> Double {
            let from = from.isEmpty ? projectCurrency : from
            guard let result = rates.convert(amount, from: from, to: currency, on: day) else {
                unconverted[from, default: 0] += amount
                return 0
            }
            if result.isStale { stale.insert(day) }
            return result.amount
        }

        struct CampaignKey: Hashable { let network, key: String }
        var costRows: [CampaignKey: Row] = [:]
        var costOrder: [CampaignKey] = []
        for row in cost {
            let key = CampaignKey(network: NetworkName.normalized(row.network), key: row.campaignKey)
            if costRows[key] == nil {
                costOrder.append(key)
                var campaign = Row(network: key.network)
                campaign.campaignID = row.campaignID
                campaign.campaignName = row.campaignName
                campaign.hasCost = true
                costRows[key] = campaign
            }
            costRows[key]!.spend += converted(row.spend, row.currency, row.day)
            costRows[key]!.impressions += row.impressions ?? 0
            costRows[key]!.clicks += row.clicks ?? 0
        }

        // Ours joined to a network's campaign by its id, else by its name; each of ours joins once.
        var byID: [CampaignKey: CampaignKey] = [:]
        var byName: [CampaignKey: CampaignKey] = [:]
        for key in costOrder {
            let row = costRows[key]!
            let id = CampaignKey(network: key.network, key: row.campaignID.lowercased())
            let name = CampaignKey(network: key.network, key: row.campaignName.lowercased())
            if !row.campaignID.isEmpty, byID[id] == nil { byID[id] = key }
            if !row.campaignName.isEmpty, byName[name] == nil { byName[name] = key }
        }
        var unjoined: [CampaignKey: Row] = [:]
        var unjoinedOrder: [CampaignKey] = []
        for source in acquired {
            var row = Row(network: source.network)
            row.campaignID = source.campaignID
            row.campaignName = source.campaignName
            row.hasInstalls = true
            row.ours = [source.campaignID]
            row.installs = source.installs
            row.payingInstalls = source.payingInstalls
            for money in source.revenue {
                let amount = converted(money.amount, money.currency, money.day)
                for day in revenueDays where money.span <= day { row.revenue[day, default: 0] += amount }
            }
            for money in source.refunds { row.refunds += converted(money.amount, money.currency, money.day) }
            let idKey = CampaignKey(network: source.network, key: source.campaignID.lowercased())
            let nameKey = CampaignKey(network: source.network, key: source.campaignName.lowercased())
            if let joined = (source.campaignID.isEmpty ? nil : byID[idKey] ?? byName[idKey]) ?? (source.campaignName.isEmpty ? nil : byName[nameKey])
            {
                row.campaignID = ""
                row.campaignName = ""
                costRows[joined]!.add(row)
                continue
            }
            let own = CampaignKey(network: source.network, key: source.campaignID.isEmpty ? "name:" + source.campaignName : source.campaignID)
            if unjoined[own] == nil {
                unjoinedOrder.append(own)
                unjoined[own] = row
            } else {
                unjoined[own]!.add(row)
                if unjoined[own]!.campaignName.isEmpty { unjoined[own]!.campaignName = source.campaignName }
            }
        }

        var rows = costOrder.map { costRows[$0]! } + unjoinedOrder.map { unjoined[$0]! }
        if grouping == .network {
            var networks: [String: Row] = [:]
            for row in rows {
                var part = row
                part.campaignID = ""
                part.campaignName = ""
                networks[row.network, default: Row(network: row.network)].add(part)
            }
            rows = Array(networks.values)
        }
        rows.sort {
            ($0.spend, $0.installs, $1.network, $1.campaignID, $1.campaignName) > ($1.spend, $1.installs, $0.network, $0.campaignID, $0.campaignName)
        }
        var totals = Row(network: "")
        for row in rows { totals.add(row) }
        return ROASReport(currency: currency, rows: rows, totals: totals, staleRateDays: stale.sorted(), unconverted: unconverted)
    }
}
