public import Attribution

/// What happened in a project over a period: clicks, installs by how they were matched, events,
/// revenue — in total and per link. Money is kept per currency and never added across currencies,
/// and captured payments are kept apart from the amounts events declare: an app that reports a
/// purchase as an event with an amount and also captures the payment would otherwise count it twice.
public struct ProjectStats: Sendable, Equatable {
    public struct Counts: Sendable, Equatable {
        public var clicks = 0
        public var botClicks = 0
        public var installs = 0
        public var attributedInstalls = 0
        /// Attributed installs Apple Ads claimed (not counted: Apple's developer-mode answers).
        public var appleAdsInstalls = 0
        public var deterministicInstalls = 0
        public var probabilisticInstalls = 0
        public var organicInstalls = 0
        public var events = 0
        /// Captured payments not removed (Linkrunner `capture-payment`), by currency.
        public var paymentRevenue: [String: Double] = [:]
        /// Amounts declared by events (LinkForty `eventData.revenue`, Linkrunner `capture-event`
        /// `amount`), by currency; events without a currency count in the project's.
        public var eventRevenue: [String: Double] = [:]

        public init() {}
    }

    public struct LinkCounts: Sendable, Equatable {
        public let linkID: String
        public let shortCode: String
        public var counts: Counts
    }

    /// Installs Apple Ads attributed, and their events and revenue, by campaign, ad group and keyword.
    public struct AppleAdsCounts: Sendable, Equatable {
        public let campaignID: String?
        public let adGroupID: String?
        public let keywordID: String?
        /// Apple's developer-mode answers (ids 1234567890), apart from paid ones.
        public let test: Bool
        public var counts: Counts
        /// Names from the Campaign Management API, when the project has credentials.
        public var campaignName: String? = nil
        public var adGroupName: String? = nil
        public var keyword: String? = nil
    }

    public var totals: Counts
    public var links: [LinkCounts]
    public var appleAds: [AppleAdsCounts] = []
}

public struct StatsRepository: StatsStore {
    let database: Database

    /// Clicks are counted link by link, each a range of `clicks_by_link`, so a short period reads
    /// only its own clicks; filtering the project's clicks by time would read all of them.
    enum SQL {
        static let appleAdsFactors = JSONText.encode([AppleAdsAttribution.factor])
        static let clicksByLink = """
            SELECT c.link_id, count(*), sum(c.is_bot) FROM links l
            JOIN clicks c ON c.link_id = l.id AND c.created_at >= ?2 AND c.created_at < ?3
            WHERE l.project_id = ?1 GROUP BY c.link_id
            """
        /// Clicks whose link was deleted (the foreign key sets it to NULL): the NULL range of the
        /// same index, over every project, within the period.
        static let unlinkedClicks = """
            SELECT count(*), coalesce(sum(is_bot), 0) FROM clicks
            WHERE link_id IS NULL AND created_at >= ?2 AND created_at < ?3 AND project_id = ?1
            """
    }

    public init(database: Database) { self.database = database }

    /// The Apple Ads breakdown: the claims that became attributions, by campaign, ad group and
    /// keyword (the claims' own index), with their installs' events and revenue.
    static func appleAds(projectID: String, from: Int64, to: Int64, currency: String,
                         _ connection: SQLiteConnection) throws -> [ProjectStats.AppleAdsCounts] {
        struct Key: Hashable { let campaign, adGroup, keyword: String?; let test: Bool }
        var rows: [Key: ProjectStats.Counts] = [:]
        let key: (Row) -> Key = { Key(campaign: $0.optionalString(0), adGroup: $0.optionalString(1), keyword: $0.optionalString(2), test: $0.bool(3)) }
        for (group, installs) in try connection.query("""
            SELECT a.campaign_id, a.ad_group_id, a.keyword_id, a.is_test, count(*) FROM apple_ads_claims a
            JOIN installs i ON i.id = a.install_id
            WHERE a.project_id = ?1 AND a.won = 1 AND i.created_at >= ?2 AND i.created_at < ?3 GROUP BY 1, 2, 3, 4
            """, projectID, from, to, map: { (key($0), Int($0.int(4))) }) {
            rows[group, default: .init()].installs += installs
            rows[group, default: .init()].attributedInstalls += installs
            rows[group, default: .init()].appleAdsInstalls += installs
            rows[group, default: .init()].deterministicInstalls += installs
        }
        for (group, events, revenueCurrency, revenue) in try connection.query("""
            SELECT a.campaign_id, a.ad_group_id, a.keyword_id, a.is_test, count(*), coalesce(e.currency, ?4), sum(e.revenue) FROM events e
            JOIN apple_ads_claims a ON a.install_id = e.install_id AND a.won = 1
            WHERE e.project_id = ?1 AND e.received_at >= ?2 AND e.received_at < ?3 GROUP BY 1, 2, 3, 4, 6
            """, projectID, from, to, currency, map: { (key($0), Int($0.int(4)), $0.string(5), $0.optionalDouble(6)) }) {
            rows[group, default: .init()].events += events
            if let revenue { rows[group, default: .init()].eventRevenue[revenueCurrency, default: 0] += revenue }
        }
        for (group, paymentCurrency, revenue) in try connection.query("""
            SELECT a.campaign_id, a.ad_group_id, a.keyword_id, a.is_test, p.currency, sum(p.amount) FROM payments p
            JOIN apple_ads_claims a ON a.install_id = p.install_id AND a.won = 1
            WHERE p.project_id = ?1 AND p.removed_at IS NULL AND p.created_at >= ?2 AND p.created_at < ?3 GROUP BY 1, 2, 3, 4, 5
            """, projectID, from, to, map: { (key($0), $0.string(4), $0.double(5)) }) {
            rows[group, default: .init()].paymentRevenue[paymentCurrency, default: 0] += revenue
        }
        return rows.map { ProjectStats.AppleAdsCounts(campaignID: $0.key.campaign, adGroupID: $0.key.adGroup, keywordID: $0.key.keyword,
                                                      test: $0.key.test, counts: $0.value) }
            .sorted { ($0.test ? 1 : 0, $0.campaignID ?? "", $0.adGroupID ?? "", $0.keywordID ?? "")
                < ($1.test ? 1 : 0, $1.campaignID ?? "", $1.adGroupID ?? "", $1.keywordID ?? "") }
    }

    /// Counts within [since, until); `currency` is the project's, for events that name none.
    public func stats(projectID: String, since: Timestamp, until: Timestamp, currency: String) throws -> ProjectStats {
        let from = since.milliseconds, to = until.milliseconds
        return try database.read { connection in
            var totals = ProjectStats.Counts()
            var perLink: [String: ProjectStats.LinkCounts] = [:]
            try connection.query("""
                SELECT l.id, l.short_code FROM links l WHERE l.project_id = ? ORDER BY l.created_at, l.id
                """, projectID) { row in (row.string(0), row.string(1)) }
                .forEach { perLink[$0.0] = ProjectStats.LinkCounts(linkID: $0.0, shortCode: $0.1, counts: .init()) }

            for (linkID, clicks, bots) in try connection.query(SQL.clicksByLink, projectID, from, to,
                                                                map: { ($0.string(0), Int($0.int(1)), Int($0.int(2))) }) {
                totals.clicks += clicks - bots
                totals.botClicks += bots
                perLink[linkID]?.counts.clicks += clicks - bots
                perLink[linkID]?.counts.botClicks += bots
            }
            if let (clicks, bots) = try connection.queryOne(SQL.unlinkedClicks, projectID, from, to,
                                                            map: { (Int($0.int(0)), Int($0.int(1))) }) {
                totals.clicks += clicks - bots
                totals.botClicks += bots
            }

            for (linkID, matchType, attributed, appleAds, count) in try connection.query("""
                SELECT link_id, match_type, attributed, matched_factors = ?4, count(*) FROM installs
                WHERE project_id = ?1 AND created_at >= ?2 AND created_at < ?3 GROUP BY 1, 2, 3, 4
                """, projectID, from, to, SQL.appleAdsFactors,
                map: { ($0.optionalString(0), $0.string(1), $0.bool(2), $0.bool(3), Int($0.int(4))) }) {
                func add(_ counts: inout ProjectStats.Counts) {
                    counts.installs += count
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
                if attributed, let linkID { add(&perLink[linkID, default: .init(linkID: linkID, shortCode: "", counts: .init())].counts) }
            }

            for (linkID, events) in try connection.query("""
                SELECT CASE WHEN i.attributed THEN i.link_id END, count(*) FROM events e
                JOIN installs i ON i.id = e.install_id
                WHERE e.project_id = ? AND e.received_at >= ? AND e.received_at < ? GROUP BY 1
                """, projectID, from, to, map: { ($0.optionalString(0), Int($0.int(1))) }) {
                totals.events += events
                if let linkID { perLink[linkID]?.counts.events += events }
            }

            for (linkID, eventCurrency, revenue) in try connection.query("""
                SELECT CASE WHEN i.attributed THEN i.link_id END, coalesce(e.currency, ?4), sum(e.revenue) FROM events e
                JOIN installs i ON i.id = e.install_id
                WHERE e.project_id = ?1 AND e.received_at >= ?2 AND e.received_at < ?3 AND e.revenue IS NOT NULL GROUP BY 1, 2
                """, projectID, from, to, currency, map: { ($0.optionalString(0), $0.string(1), $0.double(2)) }) {
                totals.eventRevenue[eventCurrency, default: 0] += revenue
                if let linkID { perLink[linkID]?.counts.eventRevenue[eventCurrency, default: 0] += revenue }
            }

            for (linkID, paymentCurrency, revenue) in try connection.query("""
                SELECT CASE WHEN i.attributed THEN i.link_id END, p.currency, sum(p.amount) FROM payments p
                JOIN installs i ON i.id = p.install_id
                WHERE p.project_id = ? AND p.removed_at IS NULL AND p.created_at >= ? AND p.created_at < ? GROUP BY 1, 2
                """, projectID, from, to, map: { ($0.optionalString(0), $0.string(1), $0.double(2)) }) {
                totals.paymentRevenue[paymentCurrency, default: 0] += revenue
                if let linkID { perLink[linkID]?.counts.paymentRevenue[paymentCurrency, default: 0] += revenue }
            }
            let links = perLink.values.sorted { $0.shortCode < $1.shortCode }
            return ProjectStats(totals: totals, links: links,
                                appleAds: try Self.appleAds(projectID: projectID, from: from, to: to, currency: currency, connection))
        }
    }
}
