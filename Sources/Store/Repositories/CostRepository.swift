import Attribution
import StoreContracts

/// Ad spend on either backend (`SessionSource`).
struct Costs<Source: SessionSource>: CostStore {
    let source: Source

    func save(_ rows: [CostRow], projectID: String, source origin: String, at time: Timestamp) throws -> (added: Int, replaced: Int) {
        try source.writeSession { connection in
            // A row's upsert cannot be refused (its values are checked), so none waits for its answer;
            // how many were new is what the project holds more after them.
            let before = try connection.queryOne(CostRepository.count, projectID) { $0.int(0) } ?? 0
            for row in rows {
                try connection.runUnanswered(
                    CostRepository.upsert, projectID, row.day, row.network, row.campaignKey, row.adGroupID, row.adID, row.campaignID,
                    row.campaignName, row.spendMicros, row.currency, row.impressions, row.clicks, origin, time.milliseconds)
            }
            let added = Int((try connection.queryOne(CostRepository.count, projectID) { $0.int(0) } ?? before) - before)
            return (added, rows.count - added)
        }
    }

    func rows(projectID: String, since: String, until: String) throws -> [CostRow] {
        try source.read { connection in
            try connection.query(CostRepository.range, projectID, since, until) { row in
                CostRow(
                    day: row.string(0), network: row.string(1), campaignID: row.string(2), campaignName: row.string(3),
                    adGroupID: row.string(4), adID: row.string(5), spendMicros: row.int(6), currency: row.string(7),
                    impressions: row.optionalInt(8), clicks: row.optionalInt(9))
            }
        }
    }

    func hasRows(projectID: String, since: String, until: String) throws -> Bool {
        try source.read { connection in
            try connection.queryOne(
                "SELECT EXISTS (SELECT 1 FROM cost_rows WHERE project_id = ? AND day >= ? AND day <= ?)", projectID, since, until,
                map: { $0.bool(0) }) ?? false
        }
    }

    func acquiredRevenue(projectID: String, from: Int64, to: Int64) throws -> AcquiredRevenue {
        try source.read { connection in
            var revenue = AcquiredRevenue()
            // Each UTC day's text made once: the revenue rows are ~300,000 over a few hundred days,
            // and formatting each row's day was a sixth of a 365-day report's time.
            var dayTexts: [Int64: String] = [:]
            var parsedValues: [String: LinkCohortRevenue] = [:]
            func dayText(_ day: Int64) -> String {
                if let text = dayTexts[day] { return text }
                let text = CostRepository.dayText(day)
                dayTexts[day] = text
                return text
            }
            // The hours that start in the period, as the installs' counts take them.
            for (day, value, micros) in try connection.query(
                CostRepository.linkCohortRevenue, projectID, TallyDimension.linkCohortRevenue, Timestamp.ceilDiv(from, 3_600_000),
                Timestamp.ceilDiv(to, 3_600_000),
                map: { ($0.int(0), $0.string(1), $0.int(2)) })
            {
                guard micros != 0 else { continue }
                // A value names a link, kind, currency and span: read each once, not once an hour.
                let known = parsedValues[value]
                guard let key = known ?? LinkCohortRevenue(value: value) else { continue }
                if known == nil { parsedValues[value] = key }
                revenue.links.append(
                    .init(
                        linkID: key.linkID,
                        money: .init(day: dayText(day), currency: key.currency, span: key.span, amount: Double(micros) / 1_000_000)))
            }
            for (linkID, day, currency, amount) in try connection.query(
                CostRepository.linkRefunds, projectID, from, to, map: { ($0.string(0), $0.int(1), $0.string(2), $0.double(3)) })
            {
                revenue.linkRefunds.append(
                    .init(linkID: linkID, money: .init(day: dayText(day), currency: currency, span: 0, amount: amount)))
            }
            func claims(_ statements: [(money: CostRepository.Money, sql: String)], network: (String) -> String?) throws {
                for (money, sql) in statements {
                    for (source, campaign, adGroup, day, currency, n, amount) in try connection.query(
                        sql, projectID, from, to,
                        map: { ($0.string(0), $0.string(1), $0.string(2), $0.int(3), $0.string(4), $0.int(5), $0.double(6)) })
                    {
                        guard let network = network(source) else { continue }
                        let entry = AcquiredRevenue.OfClaims(
                            network: network, campaignID: campaign, adGroupID: adGroup,
                            money: .init(day: dayText(day), currency: currency, span: EventTallies.span(n), amount: amount))
                        if money == .refunds { revenue.claimRefunds.append(entry) } else { revenue.claims.append(entry) }
                    }
                }
            }
            if try connection.queryOne(CostRepository.hasAppleAdsClaims, projectID, map: { $0.bool(0) }) == true {
                try claims(CostRepository.appleAdsClaimsRevenue) { _ in NetworkName.appleAds }
            }
            if try connection.queryOne(CostRepository.hasAdPlatformClaims, projectID, map: { $0.bool(0) }) == true {
                try claims(CostRepository.adPlatformClaimsRevenue) { AdPlatformClaim.Source(rawValue: $0).map(NetworkName.of) }
            }
            return revenue
        }
    }
}

/// The cost rows' SQL, for both backends.
enum CostRepository {
    static let count = "SELECT count(*) FROM cost_rows WHERE project_id = ?"

    static let upsert = """
        INSERT INTO cost_rows (project_id, day, network, campaign_key, adgroup_id, ad_id, campaign_id, campaign_name, spend_micros,
            currency, impressions, clicks, source, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (project_id, day, network, campaign_key, adgroup_id, ad_id) DO UPDATE SET campaign_id = excluded.campaign_id,
            campaign_name = excluded.campaign_name, spend_micros = excluded.spend_micros, currency = excluded.currency,
            impressions = excluded.impressions, clicks = excluded.clicks, source = excluded.source, updated_at = excluded.updated_at
        """

    static let linkCohortRevenue = """
        SELECT hour / 24, value, sum(installs) FROM rollup_tallies WHERE project_id = ? AND dimension = ? AND hour >= ? AND hour < ?
        GROUP BY 1, 2
        """

    static let hasAppleAdsClaims = "SELECT EXISTS (SELECT 1 FROM apple_ads_claims WHERE project_id = ? AND won AND NOT is_test)"
    static let hasAdPlatformClaims = "SELECT EXISTS (SELECT 1 FROM ad_platform_claims WHERE project_id = ? AND won)"

    /// The refunded payments of the period's installs credited to a link, in their first 31 days
    /// (as `linkCohortRevenue` counts the live ones), by link, the installs' UTC day and currency.
    static let linkRefunds = """
        SELECT i.link_id, i.created_at / 86400000, p.currency, sum(p.amount)
        FROM payments p JOIN installs i ON i.id = p.install_id
        WHERE p.project_id = ?1 AND p.removed_at IS NOT NULL AND i.created_at >= ?2 AND i.created_at < ?3 AND NOT i.is_test
            AND i.attributed AND i.link_id IS NOT NULL AND i.link_id <> '' AND (p.created_at - i.created_at) / 86400000 BETWEEN 0 AND 30
        GROUP BY 1, 2, 3
        """

    /// `refunds`: the payments removed since (the ROAS report's refunds column).
    enum Money: CaseIterable { case payments, events, refunds }

    static let appleAdsClaimsRevenue = Money.allCases.map { ($0, claimsRevenue(claims: "apple_ads_claims", source: "'apple_ads'", money: $0)) }
    static let adPlatformClaimsRevenue = Money.allCases.map { ($0, claimsRevenue(claims: "ad_platform_claims", source: "a.source", money: $0)) }

    /// The money of the period's installs a kind of claim won, by source, campaign, ad group, the
    /// installs' UTC day, currency and day after install (0 to 30, as `Counting.linkCohortRevenue` counts).
    static func claimsRevenue(claims table: String, source: String, money: Money) -> String {
        let (join, at, currency, amount, live) =
            switch money {
            case .payments: ("payments m", "m.created_at", "m.currency", "m.amount", "m.removed_at IS NULL")
            case .refunds: ("payments m", "m.created_at", "m.currency", "m.amount", "m.removed_at IS NOT NULL")
            case .events: ("events m", "coalesce(m.charted_at, m.received_at)", "coalesce(m.currency, '')", "m.revenue", "m.revenue IS NOT NULL")
            }
        let test = table == "apple_ads_claims" ? " AND NOT a.is_test" : ""
        return """
            SELECT \(source), coalesce(a.campaign_id, ''), coalesce(a.ad_group_id, ''), i.created_at / 86400000, \(currency),
                (\(at) - i.created_at) / 86400000, sum(\(amount))
            FROM \(table) a JOIN installs i ON i.id = a.install_id JOIN \(join) ON m.install_id = i.id
            WHERE a.project_id = ?1 AND a.won\(test) AND i.created_at >= ?2 AND i.created_at < ?3 AND NOT i.is_test AND \(live)
                AND (\(at) - i.created_at) / 86400000 BETWEEN 0 AND 30
            GROUP BY 1, 2, 3, 4, 5, 6
            """
    }

    /// `YYYY-MM-DD` of a UTC day number.
    static func dayText(_ day: Int64) -> String { LocalCalendar.utc.dateText(Timestamp(milliseconds: day * 86_400_000)) }

    static let range = """
        SELECT day, network, campaign_id, campaign_name, adgroup_id, ad_id, spend_micros, currency, impressions, clicks
        FROM cost_rows WHERE project_id = ? AND day >= ? AND day <= ?
        ORDER BY day, network, campaign_key, adgroup_id, ad_id
        """
}
