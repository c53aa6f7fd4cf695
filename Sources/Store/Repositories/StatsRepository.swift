public import Attribution
public import StoreContracts

/// Stats on either backend (`SessionSource`), from the rollups and, for what is left of an hour at
/// either end of a range, the rows; the SQL is `StatsRepository`'s.
@_spi(StoreInternals) public struct Stats<Source: SessionSource>: StatsStore {
    let source: Source
    /// Brings the rollups up to date before they are read (PostgreSQL adds up its pending deltas,
    /// postgres/0003; SQLite's are current at every commit).
    let beforeRollupRead: @Sendable () throws -> Void

    public init(source: Source, beforeRollupRead: @escaping @Sendable () throws -> Void = {}) {
        self.source = source
        self.beforeRollupRead = beforeRollupRead
    }
    /// Counts within [since, until); `currency` is the project's, for events that name none.
    /// Whole UTC days come from the day rollups (`rollup_link_days`, `rollup_money`, migration
    /// 0015), whole hours at either end from the hour rollups (`rollup_link_hours`,
    /// `rollup_link_hour_money`, 0017; `rollup_tallies`, 0018), and what is left of an hour at
    /// either end from the rows themselves, so any range is exact and reads rows for under two
    /// hours at most.
    public func stats(projectID: String, since: Timestamp, until: Timestamp, currency: String) throws -> ProjectStats {
        let from = since.milliseconds
        let to = until.milliseconds
        let firstHour = Timestamp.ceilDiv(from, StatsRepository.hourMilliseconds)
        let endHour = Timestamp.floorDiv(to, StatsRepository.hourMilliseconds)
        try beforeRollupRead()
        return try source.read { connection in
            var tally = try StatsRepository.Tally(projectID: projectID, connection)
            if firstHour < endHour {
                let firstDay = Timestamp.ceilDiv(firstHour, 24)
                let endDay = Timestamp.floorDiv(endHour, 24)
                if firstDay < endDay {
                    try tally.addRollups(.days, firstDay..<endDay, currency: currency, connection)
                    // Hours of those days not folded into them yet (migration 0022).
                    let unfolded = try StatsRepository.unfoldedHours(firstDay * 24..<endDay * 24, connection)
                    try tally.addRollups(.hours, unfolded, currency: currency, connection)
                    try tally.addRollups(.hours, firstHour..<firstDay * 24, currency: currency, connection)
                    try tally.addRollups(.hours, endDay * 24..<endHour, currency: currency, connection)
                } else {
                    try tally.addRollups(.hours, firstHour..<endHour, currency: currency, connection)
                }
                try tally.addTallies(hours: firstHour..<endHour, connection)
                try tally.addRows(from: from, to: firstHour * StatsRepository.hourMilliseconds, currency: currency, connection)
                try tally.addRows(from: endHour * StatsRepository.hourMilliseconds, to: to, currency: currency, connection)
            } else {
                try tally.addRows(from: from, to: to, currency: currency, connection)
            }
            var stats = tally.stats(appleAds: try StatsRepository.appleAds(projectID: projectID, from: from, to: to, currency: currency, connection))
            stats.adPlatforms = try StatsRepository.adPlatforms(projectID: projectID, from: from, to: to, connection)
            stats.verifiedPaymentRevenue = try StatsRepository.verifiedPayments(projectID: projectID, from: from, to: to, connection)
            return stats
        }
    }

    /// The same counts from the rows alone (no rollup): what the rollups must always agree with.
    public func statsFromRows(projectID: String, since: Timestamp, until: Timestamp, currency: String) throws -> ProjectStats {
        try source.read { connection in
            var tally = try StatsRepository.Tally(projectID: projectID, connection)
            try tally.addRows(from: since.milliseconds, to: until.milliseconds, currency: currency, connection)
            var stats = tally.stats(
                appleAds: try StatsRepository.appleAds(
                    projectID: projectID, from: since.milliseconds, to: until.milliseconds,
                    currency: currency, connection))
            stats.adPlatforms = try StatsRepository.adPlatforms(projectID: projectID, from: since.milliseconds, to: until.milliseconds, connection)
            return stats
        }
    }

    /// Project totals per bucket, the buckets running from each boundary to the next (ascending:
    /// local days, weeks or hours), from `rollup_project_hours`: charts never read clicks. An hour
    /// counts in the bucket where it starts (exact wherever boundaries fall on whole hours, which
    /// they do in every time zone but those with offsets of :30 or :45).
    public func variants(projectID: String, linkID: String, since: Timestamp, until: Timestamp, currency: String) throws -> [VariantCounts] {
        try source.read { connection in
            var counts: [String: VariantCounts] = [:]
            let range = (since.milliseconds, until.milliseconds)
            for (name, clicks) in try connection.query(
                """
                SELECT variant, count(*) FROM clicks WHERE link_id = ? AND project_id = ? AND variant IS NOT NULL AND NOT is_bot
                    AND created_at >= ? AND created_at < ? GROUP BY variant
                """, linkID, projectID, range.0, range.1, map: { ($0.string(0), Int($0.int(1))) })
            {
                counts[name, default: VariantCounts(name: name)].clicks = clicks
            }
            for (name, installs) in try connection.query(
                """
                SELECT variant, count(*) FROM installs WHERE link_id = ? AND project_id = ? AND variant IS NOT NULL
                    AND created_at >= ? AND created_at < ? GROUP BY variant
                """, linkID, projectID, range.0, range.1, map: { ($0.string(0), Int($0.int(1))) })
            {
                counts[name, default: VariantCounts(name: name)].installs = installs
            }
            for (name, money, events, revenue) in try connection.query(
                """
                SELECT i.variant, coalesce(e.currency, ?), count(*), sum(e.revenue) FROM events e JOIN installs i ON i.id = e.install_id
                WHERE i.link_id = ? AND i.project_id = ? AND i.variant IS NOT NULL AND e.occurred_at >= ? AND e.occurred_at < ?
                GROUP BY 1, 2
                """, currency, linkID, projectID, range.0, range.1,
                map: { ($0.string(0), $0.string(1), Int($0.int(2)), $0.optionalDouble(3)) })
            {
                counts[name, default: VariantCounts(name: name)].events += events
                if let revenue { counts[name, default: VariantCounts(name: name)].revenue[money, default: 0] += revenue }
            }
            return counts.values.sorted { $0.name < $1.name }
        }
    }

    public func series(projectID: String, boundaries: [Timestamp], currency: String) throws -> [StatsBucket] {
        guard boundaries.count >= 2 else { return [] }
        var buckets = boundaries.dropLast().map { StatsBucket(start: $0) }
        let firstHour = Timestamp.floorDiv(boundaries[0].milliseconds, StatsRepository.hourMilliseconds)
        let endHour = Timestamp.ceilDiv(boundaries[boundaries.count - 1].milliseconds, StatsRepository.hourMilliseconds)
        let starts = boundaries.map(\.milliseconds)
        /// The bucket an hour starting at `at` belongs to: the last boundary at or before it.
        func index(ofHour hour: Int64) -> Int? {
            let at = hour * StatsRepository.hourMilliseconds
            var low = 0
            var high = starts.count - 1
            guard at < starts[high] else { return nil }
            if at < starts[0] { return 0 }
            while high - low > 1 {
                let middle = (low + high) / 2
                if starts[middle] <= at { low = middle } else { high = middle }
            }
            return low
        }
        try beforeRollupRead()
        return try source.read { connection in
            _ = try connection.query(
                """
                SELECT hour, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs,
                    probabilistic_installs, organic_installs, events, signups, paying_installs
                FROM rollup_project_hours WHERE project_id = ? AND hour >= ? AND hour < ?
                """, projectID, firstHour, endHour
            ) { row -> Void in
                guard let index = index(ofHour: row.int(0)) else { return }
                StatsRepository.add(row, from: 1, to: &buckets[index].counts)
            }
            func addMoney(_ row: some ColumnReader) {
                guard let index = index(ofHour: row.int(0)) else { return }
                let moneyCurrency = row.string(2).isEmpty ? currency : row.string(2)
                if row.string(1) == "payment" {
                    buckets[index].counts.paymentRevenue[moneyCurrency, default: 0] += row.double(3)
                } else {
                    buckets[index].counts.eventRevenue[moneyCurrency, default: 0] += row.double(3)
                }
            }
            _ = try connection.query(
                """
                SELECT period, kind, currency, amount, entries FROM rollup_money
                WHERE project_id = ? AND scope = 'hour' AND period >= ? AND period < ? AND entries <> 0
                """, projectID, firstHour, endHour
            ) { addMoney($0) }
            // Hours not folded into the project's hours yet (migration 0022): the sum of its links' hours.
            let unfolded = try StatsRepository.unfoldedHours(firstHour..<endHour, connection)
            guard !unfolded.isEmpty else { return buckets }
            _ = try connection.query(
                """
                SELECT hour, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs),
                    sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups),
                    sum(paying_installs)
                FROM rollup_link_hours WHERE project_id = ? AND hour >= ? AND hour < ? GROUP BY hour
                """, projectID, unfolded.lowerBound, unfolded.upperBound
            ) { row -> Void in
                guard let index = index(ofHour: row.int(0)) else { return }
                StatsRepository.add(row, from: 1, to: &buckets[index].counts)
            }
            _ = try connection.query(
                """
                SELECT hour, kind, currency, sum(amount), sum(entries) FROM rollup_link_hour_money
                WHERE project_id = ? AND hour >= ? AND hour < ? GROUP BY 1, 2, 3 HAVING sum(entries) <> 0
                """, projectID, unfolded.lowerBound, unfolded.upperBound
            ) { addMoney($0) }
            return buckets
        }
    }
}

/// The stats' SQL and arithmetic, for both backends.
public enum StatsRepository {
    /// The hours of `hours` that the day and project-hour rollups do not hold yet, only the link
    /// hours (migration 0022; none on PostgreSQL, whose rollups take every delta at once).
    static func unfoldedHours(_ hours: Range<Int64>, _ connection: some StoreSession) throws -> Range<Int64> {
        let folded = try connection.queryOne("SELECT through_hour FROM rollup_folded") { $0.int(0) } ?? Int64.max - 1
        let first = max(hours.lowerBound, folded + 1)
        return first < hours.upperBound ? first..<hours.upperBound : hours.upperBound..<hours.upperBound
    }

    /// Clicks are counted link by link, each a range of `clicks_by_link`, so a short period reads
    /// only its own clicks; filtering the project's clicks by time would read all of them.
    enum SQL {
        static let appleAdsFactors = JSONText.encode([AppleAdsAttribution.factor])
        static let clicksByLink = """
            SELECT c.link_id, count(*), count(*) FILTER (WHERE c.is_bot) FROM links l
            JOIN clicks c ON c.link_id = l.id AND c.created_at >= ?2 AND c.created_at < ?3
            WHERE l.project_id = ?1 GROUP BY c.link_id
            """
        /// Clicks whose link was deleted (the foreign key sets it to NULL): the NULL range of the
        /// same index, over every project, within the period.
        static let unlinkedClicks = """
            SELECT count(*), count(*) FILTER (WHERE is_bot) FROM clicks
            WHERE link_id IS NULL AND created_at >= ?2 AND created_at < ?3 AND project_id = ?1
            """
        /// SQLite keeps the claims first with CROSS JOIN; PostgreSQL's CROSS JOIN takes no ON
        /// (and its planner needs no hint).
        static func appleAdsEvents(_ dialect: SQLDialect) -> String { dialect == .sqlite ? appleAdsEventsSQLite : appleAdsEventsPostgres }
        static func appleAdsPayments(_ dialect: SQLDialect) -> String { dialect == .sqlite ? appleAdsPaymentsSQLite : appleAdsPaymentsPostgres }
        private static let appleAdsEventsSQLite = appleAdsEvents(join: "CROSS JOIN")
        private static let appleAdsEventsPostgres = appleAdsEvents(join: "JOIN")
        private static let appleAdsPaymentsSQLite = appleAdsPayments(join: "CROSS JOIN")
        private static let appleAdsPaymentsPostgres = appleAdsPayments(join: "JOIN")
        private static func appleAdsEvents(join: String) -> String {
            """
            SELECT a.campaign_id, a.ad_group_id, a.keyword_id, a.is_test, count(*), coalesce(e.currency, ?4), sum(e.revenue)
            FROM apple_ads_claims a \(join) events e ON e.install_id = a.install_id
            WHERE a.project_id = ?1 AND a.won AND e.charted_at >= ?2 AND e.charted_at < ?3 GROUP BY 1, 2, 3, 4, 6
            """
        }
        private static func appleAdsPayments(join: String) -> String {
            """
            SELECT a.campaign_id, a.ad_group_id, a.keyword_id, a.is_test, p.currency, sum(p.amount)
            FROM apple_ads_claims a \(join) payments p ON p.install_id = a.install_id
            WHERE a.project_id = ?1 AND a.won AND p.removed_at IS NULL AND p.created_at >= ?2 AND p.created_at < ?3 GROUP BY 1, 2, 3, 4, 5
            """
        }
    }

    /// The Apple Ads breakdown: the claims that became attributions, by campaign, ad group and
    /// keyword (the claims' own index), with their installs' events and revenue.
    private struct AppleAdsKey: Hashable {
        let campaign, adGroup, keyword: String?
        let test: Bool
    }

    static func appleAds<C: StoreSession>(
        projectID: String, from: Int64, to: Int64, currency: String,
        _ connection: C
    ) throws -> [ProjectStats.AppleAdsCounts] {
        // Most projects have no Apple Ads claims: then nothing below runs, and where there are
        // some, each query starts from the claims (CROSS JOIN keeps that order) and reaches events
        // and payments through their install index, never reading the period's events.
        guard
            try connection.queryOne(
                "SELECT EXISTS (SELECT 1 FROM apple_ads_claims WHERE project_id = ? AND won)", projectID,
                map: { $0.bool(0) }) == true
        else { return [] }
        var rows: [AppleAdsKey: ProjectStats.Counts] = [:]
        let key: (C.Reader) -> AppleAdsKey = {
            AppleAdsKey(campaign: $0.optionalString(0), adGroup: $0.optionalString(1), keyword: $0.optionalString(2), test: $0.bool(3))
        }
        for (group, installs) in try connection.query(
            """
            SELECT a.campaign_id, a.ad_group_id, a.keyword_id, a.is_test, count(*) FROM apple_ads_claims a
            JOIN installs i ON i.id = a.install_id
            WHERE a.project_id = ?1 AND a.won AND i.created_at >= ?2 AND i.created_at < ?3 AND NOT i.is_test GROUP BY 1, 2, 3, 4
            """, projectID, from, to, map: { (key($0), Int($0.int(4))) })
        {
            rows[group, default: .init()].installs += installs
            rows[group, default: .init()].attributedInstalls += installs
            rows[group, default: .init()].appleAdsInstalls += installs
            rows[group, default: .init()].deterministicInstalls += installs
        }
        for (group, events, revenueCurrency, revenue) in try connection.query(
            SQL.appleAdsEvents(C.dialect), projectID, from, to, currency, map: { (key($0), Int($0.int(4)), $0.string(5), $0.optionalDouble(6)) })
        {
            rows[group, default: .init()].events += events
            if let revenue { rows[group, default: .init()].eventRevenue[revenueCurrency, default: 0] += revenue }
        }
        for (group, paymentCurrency, revenue) in try connection.query(
            SQL.appleAdsPayments(C.dialect), projectID, from, to, map: { (key($0), $0.string(4), $0.double(5)) })
        {
            rows[group, default: .init()].paymentRevenue[paymentCurrency, default: 0] += revenue
        }
        return rows.map {
            ProjectStats.AppleAdsCounts(
                campaignID: $0.key.campaign, adGroupID: $0.key.adGroup, keywordID: $0.key.keyword,
                test: $0.key.test, counts: $0.value)
        }
        .sorted {
            ($0.test ? 1 : 0, $0.campaignID ?? "", $0.adGroupID ?? "", $0.keywordID ?? "")
                < ($1.test ? 1 : 0, $1.campaignID ?? "", $1.adGroupID ?? "", $1.keywordID ?? "")
        }
    }

    /// The installs of the period an ad platform's claim holds, with their events, by source,
    /// campaign and ad group; nothing is read past the check when the project has no won claim.
    static func adPlatforms(projectID: String, from: Int64, to: Int64, _ connection: some StoreSession) throws -> [ProjectStats.AdPlatformCounts] {
        guard
            try connection.queryOne(
                "SELECT EXISTS (SELECT 1 FROM ad_platform_claims WHERE project_id = ? AND won)", projectID, map: { $0.bool(0) }) == true
        else { return [] }
        return try connection.query(
            """
            SELECT a.source, a.campaign_id, max(a.campaign_name), a.ad_group_id, max(a.ad_group_name), count(*),
                sum((SELECT count(*) FROM events e WHERE e.install_id = i.id AND e.occurred_at >= ?2 AND e.occurred_at < ?3))
            FROM ad_platform_claims a JOIN installs i ON i.id = a.install_id
            WHERE a.project_id = ?1 AND a.won AND i.created_at >= ?2 AND i.created_at < ?3 AND NOT i.is_test
            GROUP BY a.source, a.campaign_id, a.ad_group_id ORDER BY a.source, a.campaign_id, a.ad_group_id
            """, projectID, from, to
        ) { row in
            ProjectStats.AdPlatformCounts(
                source: row.string(0), campaignID: row.optionalString(1), campaignName: row.optionalString(2), adGroupID: row.optionalString(3),
                adGroupName: row.optionalString(4), installs: Int(row.int(5)), events: Int(row.int(6)))
        }
    }

    /// The period's payments a store verified, per currency; nothing is read past the check
    /// when the project has no revenue source.
    static func verifiedPayments(projectID: String, from: Int64, to: Int64, _ connection: some StoreSession) throws -> [String: Double] {
        guard
            try connection.queryOne(
                "SELECT EXISTS (SELECT 1 FROM revenue_sources WHERE project_id = ?)", projectID, map: { $0.bool(0) }) == true
        else { return [:] }
        var amounts: [String: Double] = [:]
        for (currency, amount) in try connection.query(
            """
            SELECT p.currency, sum(p.amount) FROM payments p JOIN installs i ON i.id = p.install_id
            WHERE p.project_id = ? AND p.verified_by IS NOT NULL AND p.created_at >= ? AND p.created_at < ? AND p.removed_at IS NULL
                AND NOT i.is_test
            GROUP BY p.currency
            """, projectID, from, to, map: { ($0.string(0), $0.double(1)) })
        {
            amounts[currency] = amount
        }
        return amounts
    }

    static let hourMilliseconds: Int64 = 3_600_000
    static let dayMilliseconds: Int64 = 86_400_000

    /// Adds a rollup row's eleven counters, starting at `column`.
    static func add(_ row: some ColumnReader, from column: Int32, to counts: inout ProjectStats.Counts) {
        counts.clicks += Int(row.int(column))
        counts.botClicks += Int(row.int(column + 1))
        counts.installs += Int(row.int(column + 2))
        counts.attributedInstalls += Int(row.int(column + 3))
        counts.appleAdsInstalls += Int(row.int(column + 4))
        counts.deterministicInstalls += Int(row.int(column + 5))
        counts.probabilisticInstalls += Int(row.int(column + 6))
        counts.organicInstalls += Int(row.int(column + 7))
        counts.events += Int(row.int(column + 8))
        counts.signups += Int(row.int(column + 9))
        counts.payingInstalls += Int(row.int(column + 10))
    }

    /// Counts being added up: the project's total and each of its links'.
    struct Tally {
        let projectID: String
        var totals = ProjectStats.Counts()
        var perLink: [String: ProjectStats.LinkCounts] = [:]

        init(projectID: String, _ connection: some StoreSession) throws {
            self.projectID = projectID
            // A templated link's campaign is its template's where the link sets none, as its clicks carry.
            let links = try connection.query(
                """
                SELECT l.id, l.short_code, l.utm_source, l.utm_medium, l.utm_campaign, t.utm FROM links l
                LEFT JOIN templates t ON t.id = l.template_id WHERE l.project_id = ?
                """, projectID,
                map: { row in
                    let template = row.optionalString(5).map(JSONText.decodeMap) ?? [:]
                    return ProjectStats.LinkCounts(
                        linkID: row.string(0), shortCode: row.string(1), counts: .init(),
                        utmSource: row.optionalString(2) ?? template["source"],
                        utmMedium: row.optionalString(3) ?? template["medium"],
                        utmCampaign: row.optionalString(4) ?? template["campaign"])
                })
            perLink.reserveCapacity(links.count)
            for link in links { perLink[link.linkID] = link }
        }

        func stats(appleAds: [ProjectStats.AppleAdsCounts]) -> ProjectStats {
            ProjectStats(
                totals: totals, links: perLink.values.sorted { $0.shortCode < $1.shortCode }, appleAds: appleAds,
                installsByConfidence: installsByConfidence.filter { $0.value != 0 },
                skanValues: skanValues.mapValues { $0.filter { $0.value != 0 } }.filter { !$0.value.isEmpty })
        }

        var installsByConfidence: [String: Int] = [:]
        var skanValues: [Int: [String: Int]] = [:]

        /// Per-link rollups at one granularity: days (0015) or hours (0017).
        enum Granularity {
            case days, hours

            var counts: String {
                switch self {
                case .days: "FROM rollup_link_days WHERE project_id = ? AND day >= ? AND day < ? GROUP BY link_id"
                case .hours: "FROM rollup_link_hours WHERE project_id = ? AND hour >= ? AND hour < ? GROUP BY link_id"
                }
            }

            var money: String {
                switch self {
                case .days: "FROM rollup_money WHERE project_id = ? AND scope = 'day' AND period >= ? AND period < ? GROUP BY 1, 2, 3"
                case .hours: "FROM rollup_link_hour_money WHERE project_id = ? AND hour >= ? AND hour < ? GROUP BY 1, 2, 3"
                }
            }
        }

        /// Whole days or hours from the rollups; link '' (no link) counts in the totals only.
        mutating func addRollups(_ granularity: Granularity, _ periods: Range<Int64>, currency: String, _ connection: some StoreSession) throws {
            guard !periods.isEmpty else { return }
            _ = try connection.query(
                """
                SELECT link_id, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs),
                    sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events),
                    sum(signups), sum(paying_installs) \(granularity.counts)
                """, projectID, periods.lowerBound, periods.upperBound
            ) { row -> Void in
                StatsRepository.add(row, from: 1, to: &totals)
                let linkID = row.string(0)
                if !linkID.isEmpty, perLink[linkID] != nil { StatsRepository.add(row, from: 1, to: &perLink[linkID]!.counts) }
            }
            _ = try connection.query(
                "SELECT link_id, kind, currency, sum(amount), sum(entries) \(granularity.money)",
                projectID, periods.lowerBound, periods.upperBound
            ) { row -> Void in
                guard row.int(4) != 0 else { return }
                let linkID = row.string(0)
                let amount = row.double(3)
                let moneyCurrency = row.string(2).isEmpty ? currency : row.string(2)
                let isPayment = row.string(1) == "payment"
                if isPayment {
                    totals.paymentRevenue[moneyCurrency, default: 0] += amount
                } else {
                    totals.eventRevenue[moneyCurrency, default: 0] += amount
                }
                guard !linkID.isEmpty, perLink[linkID] != nil else { return }
                if isPayment {
                    perLink[linkID]!.counts.paymentRevenue[moneyCurrency, default: 0] += amount
                } else {
                    perLink[linkID]!.counts.eventRevenue[moneyCurrency, default: 0] += amount
                }
            }
        }

        /// Installs by confidence band and by SKAN value over whole hours (`rollup_tallies`).
        mutating func addTallies(hours: Range<Int64>, _ connection: some StoreSession) throws {
            _ = try connection.query(
                """
                SELECT dimension, value, sum(installs) FROM rollup_tallies
                WHERE project_id = ?1 AND dimension IN ('confidence', 'skan1', 'skan2', 'skan3') AND hour >= ?2 AND hour < ?3 GROUP BY 1, 2
                """, projectID, hours.lowerBound, hours.upperBound
            ) { row -> Void in
                addTally(dimension: row.string(0), value: row.string(1), installs: Int(row.int(2)))
            }
        }

        mutating func addTally(dimension: String, value: String, installs: Int) {
            if dimension == "confidence" {
                installsByConfidence[value, default: 0] += installs
            } else if dimension.hasPrefix("skan"), let window = Int(dimension.dropFirst(4)) {
                skanValues[window, default: [:]][value, default: 0] += installs
            }
        }

        /// [from, to) counted from the rows themselves.
        mutating func addRows(from: Int64, to: Int64, currency: String, _ connection: some StoreSession) throws {
            guard from < to else { return }
            for (linkID, clicks, bots) in try connection.query(
                SQL.clicksByLink, projectID, from, to,
                map: { ($0.string(0), Int($0.int(1)), Int($0.int(2))) })
            {
                totals.clicks += clicks - bots
                totals.botClicks += bots
                perLink[linkID]?.counts.clicks += clicks - bots
                perLink[linkID]?.counts.botClicks += bots
            }
            if let (clicks, bots) = try connection.queryOne(
                SQL.unlinkedClicks, projectID, from, to,
                map: { (Int($0.int(0)), Int($0.int(1))) })
            {
                totals.clicks += clicks - bots
                totals.botClicks += bots
            }

            for (linkID, matchType, attributed, appleAds, count, signups, paying) in try connection.query(
                """
                SELECT link_id, match_type, attributed, matched_factors = ?4, count(*), count(*) FILTER (WHERE signed_up),
                    count(*) FILTER (WHERE EXISTS (SELECT 1 FROM payments p WHERE p.install_id = installs.id AND p.removed_at IS NULL)
                        OR EXISTS (SELECT 1 FROM events e WHERE e.install_id = installs.id AND e.revenue IS NOT NULL)) FROM installs
                WHERE project_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND NOT is_test GROUP BY 1, 2, 3, 4
                """, projectID, from, to, SQL.appleAdsFactors,
                map: { ($0.optionalString(0), $0.string(1), $0.bool(2), $0.bool(3), Int($0.int(4)), Int($0.int(5)), Int($0.int(6))) })
            {
                func add(_ counts: inout ProjectStats.Counts) {
                    counts.installs += count
                    counts.signups += signups
                    counts.payingInstalls += paying
                    if attributed {
                        counts.attributedInstalls += count
                        if appleAds { counts.appleAdsInstalls += count }
                        if matchType == "deterministic" { counts.deterministicInstalls += count }
                        if matchType == "probabilistic" { counts.probabilisticInstalls += count }
                    } else {
                        counts.organicInstalls += count
                    }
                }
                add(&totals)
                if attributed, let linkID, perLink[linkID] != nil { add(&perLink[linkID]!.counts) }
            }

            for (band, installs) in try connection.query(
                """
                SELECT CASE WHEN confidence >= 0.8 THEN 'high' WHEN confidence >= 0.6 THEN 'medium' ELSE 'low' END, count(*) FROM installs
                WHERE project_id = ? AND created_at >= ? AND created_at < ? AND attributed AND NOT is_test GROUP BY 1
                """, projectID, from, to, map: { ($0.string(0), Int($0.int(1))) })
            {
                addTally(dimension: "confidence", value: band, installs: installs)
            }
            for (window, value, installs) in try connection.query(
                """
                SELECT s.window, coalesce(CAST(s.fine AS TEXT), s.coarse), count(*) FROM installs i JOIN skan_state s ON s.install_id = i.id
                WHERE i.project_id = ? AND i.created_at >= ? AND i.created_at < ? AND NOT i.is_test AND (s.fine IS NOT NULL OR s.coarse IS NOT NULL) GROUP BY 1, 2
                """, projectID, from, to, map: { ($0.int(0), $0.string(1), Int($0.int(2))) })
            {
                addTally(dimension: "skan\(window)", value: value, installs: installs)
            }

            for (linkID, events) in try connection.query(
                """
                SELECT CASE WHEN i.attributed THEN i.link_id END, count(*) FROM events e
                JOIN installs i ON i.id = e.install_id
                WHERE e.project_id = ? AND e.charted_at >= ? AND e.charted_at < ? AND NOT i.is_test GROUP BY 1
                """, projectID, from, to, map: { ($0.optionalString(0), Int($0.int(1))) })
            {
                totals.events += events
                if let linkID { perLink[linkID]?.counts.events += events }
            }

            for (linkID, eventCurrency, revenue) in try connection.query(
                """
                SELECT CASE WHEN i.attributed THEN i.link_id END, coalesce(e.currency, ?4), sum(e.revenue) FROM events e
                JOIN installs i ON i.id = e.install_id
                WHERE e.project_id = ?1 AND e.charted_at >= ?2 AND e.charted_at < ?3 AND e.revenue IS NOT NULL AND NOT i.is_test GROUP BY 1, 2
                """, projectID, from, to, currency, map: { ($0.optionalString(0), $0.string(1), $0.double(2)) })
            {
                totals.eventRevenue[eventCurrency, default: 0] += revenue
                if let linkID { perLink[linkID]?.counts.eventRevenue[eventCurrency, default: 0] += revenue }
            }

            for (linkID, paymentCurrency, revenue) in try connection.query(
                """
                SELECT CASE WHEN i.attributed THEN i.link_id END, p.currency, sum(p.amount) FROM payments p
                JOIN installs i ON i.id = p.install_id
                WHERE p.project_id = ? AND p.removed_at IS NULL AND p.created_at >= ? AND p.created_at < ? AND NOT i.is_test GROUP BY 1, 2
                """, projectID, from, to, map: { ($0.optionalString(0), $0.string(1), $0.double(2)) })
            {
                totals.paymentRevenue[paymentCurrency, default: 0] += revenue
                if let linkID { perLink[linkID]?.counts.paymentRevenue[paymentCurrency, default: 0] += revenue }
            }
        }
    }
}
