/// Return on ad spend for a period, per network and campaign (docs/cost.md, "ROAS"): what the
/// networks spent on the days of the period beside the installs of those days we credited to
/// their campaigns, and what those installs paid in their first days, all in one reporting
/// currency at each day's rates. Pure: the store reads the cost rows and what each of our sources
/// credited; this joins and converts them.
public struct ROASReport: Sendable, Equatable {
    public enum Grouping: String, Sendable, CaseIterable {
        case network, campaign
        /// Campaign and ad group: the cost rows' `adgroup_id` beside the installs of claims that
        /// carry one (Apple Ads, the ad platforms); what has none is the campaign's row without one.
        case adGroup = "adgroup"
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
        /// The claims' ad group; empty for a link's installs, which name none.
        public var adGroupID: String
        public var adGroupName: String
        public var installs: Int
        public var payingInstalls: Int
        public var revenue: [Revenue]
        /// Their payments of the same days refunded since (not in `revenue`).
        public var refunds: [Revenue]

        public init(
            network: String, campaignID: String, campaignName: String, adGroupID: String = "", adGroupName: String = "", installs: Int,
            payingInstalls: Int, revenue: [Revenue] = [], refunds: [Revenue] = []
        ) {
            self.network = network
            self.campaignID = campaignID
            self.campaignName = campaignName
            self.adGroupID = adGroupID
            self.adGroupName = adGroupName
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
        /// Set in a report by ad group only.
        public var adGroupID = ""
        public var adGroupName = ""
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
        /// A row of the report before grouping by network: a campaign, and its ad group when by ad group.
        struct RowKey: Hashable {
            let campaign: CampaignKey
            let adGroup: String
        }
        let byAdGroup = grouping == .adGroup
        // Rows in order of first appearance, found by key once per cost row and changed in place.
        var costRows: [Row] = []
        var costIndex: [RowKey: Int] = [:]
        var campaigns: [CampaignKey: (id: String, name: String)] = [:]
        var campaignOrder: [CampaignKey] = []
        // A year of cost is ~70,000 rows naming a handful of networks: each spelling folded once
        // (folding every row was a fifth of a 365-day report's time).
        var folded: [String: String] = [:]
        for row in cost {
            let network: String
            if let known = folded[row.network] {
                network = known
            } else {
                network = NetworkName.normalized(row.network)
                folded[row.network] = network
            }
            let campaign = CampaignKey(network: network, key: row.campaignKey)
            let key = RowKey(campaign: campaign, adGroup: byAdGroup ? row.adGroupID : "")
            let index: Int
            if let known = costIndex[key] {
                index = known
            } else {
                if campaigns[campaign] == nil {
                    campaignOrder.append(campaign)
                    campaigns[campaign] = (row.campaignID, row.campaignName)
                }
                var entry = Row(network: campaign.network)
                entry.campaignID = row.campaignID
                entry.campaignName = row.campaignName
                entry.adGroupID = key.adGroup
                entry.hasCost = true
                index = costRows.count
                costIndex[key] = index
                costRows.append(entry)
            }
            costRows[index].spend += converted(row.spend, row.currency, row.day)
            costRows[index].impressions += row.impressions ?? 0
            costRows[index].clicks += row.clicks ?? 0
        }

        // Ours joined to a network's campaign by its id, else by its name; each of ours joins once.
        var byID: [CampaignKey: CampaignKey] = [:]
        var byName: [CampaignKey: CampaignKey] = [:]
        for campaign in campaignOrder {
            let (campaignID, campaignName) = campaigns[campaign]!
            let id = CampaignKey(network: campaign.network, key: campaignID.lowercased())
            let name = CampaignKey(network: campaign.network, key: campaignName.lowercased())
            if !campaignID.isEmpty, byID[id] == nil { byID[id] = campaign }
            if !campaignName.isEmpty, byName[name] == nil { byName[name] = campaign }
        }
        var unjoined: [RowKey: Row] = [:]
        var unjoinedOrder: [RowKey] = []
        for source in acquired {
            var row = Row(network: source.network)
            row.campaignID = source.campaignID
            row.campaignName = source.campaignName
            row.adGroupID = byAdGroup ? source.adGroupID : ""
            row.adGroupName = byAdGroup ? source.adGroupName : ""
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
                // An ad group the network reported no cost for is a row of the campaign's own.
                let key = RowKey(campaign: joined, adGroup: row.adGroupID)
                let index: Int
                if let known = costIndex[key] {
                    index = known
                } else {
                    var entry = Row(network: joined.network)
                    (entry.campaignID, entry.campaignName) = campaigns[joined]!
                    entry.adGroupID = key.adGroup
                    index = costRows.count
                    costIndex[key] = index
                    costRows.append(entry)
                }
                if costRows[index].adGroupName.isEmpty { costRows[index].adGroupName = row.adGroupName }
                row.campaignID = ""
                row.campaignName = ""
                costRows[index].add(row)
                continue
            }
            let own = RowKey(
                campaign: CampaignKey(network: source.network, key: source.campaignID.isEmpty ? "name:" + source.campaignName : source.campaignID),
                adGroup: row.adGroupID)
            if unjoined[own] == nil {
                unjoinedOrder.append(own)
                unjoined[own] = row
            } else {
                unjoined[own]!.add(row)
                if unjoined[own]!.campaignName.isEmpty { unjoined[own]!.campaignName = source.campaignName }
                if unjoined[own]!.adGroupName.isEmpty { unjoined[own]!.adGroupName = row.adGroupName }
            }
        }

        var rows = costRows + unjoinedOrder.map { unjoined[$0]! }
        if grouping == .network {
            var networks: [String: Row] = [:]
            for row in rows {
                var part = row
                part.campaignID = ""
                part.campaignName = ""
                part.adGroupID = ""
                part.adGroupName = ""
                networks[row.network, default: Row(network: row.network)].add(part)
            }
            rows = Array(networks.values)
        }
        rows.sort {
            ($0.spend, $0.installs, $1.network, $1.campaignID, $1.campaignName, $1.adGroupID)
                > ($1.spend, $1.installs, $0.network, $0.campaignID, $0.campaignName, $0.adGroupID)
        }
        var totals = Row(network: "")
        for row in rows { totals.add(row) }
        return ROASReport(currency: currency, rows: rows, totals: totals, staleRateDays: stale.sorted(), unconverted: unconverted)
    }
}
