import Attribution
import SQLValues
import StoreContracts

/// The dashboard's reads, one implementation for both backends (`SessionSource`: SQLite's
/// `Database`, PostgreSQL's `PGPool`), in SQL both dialects read alike (`"window"` quoted,
/// `CAST(? AS BIGINT)` where PostgreSQL needs a parameter's type).
struct Browse<Source: SessionSource>: BrowseStore {
    let source: Source
    /// As `Stats.beforeRollupRead`: before `linkSeries` reads the hour rollups.
    var beforeRollupRead: @Sendable () throws -> Void = {}

    private static var installColumns: String {
        """
        i.id, i.created_at, i.api, i.platform, i.match_type, i.attributed, i.confidence, i.matched_factors, i.link_id, l.short_code,
        i.click_id, i.user_id, i.country, i.is_test
        """
    }

    private static func install(_ row: some ColumnReader) -> InstallSummary {
        InstallSummary(
            id: row.string(0), createdAt: Timestamp(milliseconds: row.int(1)), api: row.string(2), platform: row.optionalString(3),
            matchType: row.string(4), attributed: row.bool(5), confidence: row.optionalDouble(6) ?? 0,
            matchedFactors: JSONText.decodeStrings(row.string(7)), linkID: row.optionalString(8), shortCode: row.optionalString(9),
            clickID: row.optionalString(10), userID: row.optionalString(11), country: row.optionalString(12),
            isTest: row.bool(13))
    }

    func recentInstalls(projectID: String, test: Bool, before: Timestamp?, limit: Int) throws -> [InstallSummary] {
        try source.read { connection in
            try connection.query(
                """
                SELECT \(Self.installColumns) FROM installs i LEFT JOIN links l ON l.id = i.link_id
                WHERE i.project_id = ? AND \(test ? "" : "NOT ")i.is_test AND i.created_at < ? ORDER BY i.created_at DESC, i.id LIMIT ?
                """, values: [.text(projectID), .integer(before?.milliseconds ?? Int64.max), .integer(Int64(limit))], map: Self.install)
        }
    }

    func install(id: String, projectID: String) throws -> InstallSummary? {
        try source.read { connection in
            try connection.query(
                """
                SELECT \(Self.installColumns) FROM installs i LEFT JOIN links l ON l.id = i.link_id WHERE i.id = ? AND i.project_id = ?
                """, values: [.text(id), .text(projectID)], map: Self.install
            ).first
        }
    }

    func clicksClaimedEarlier(installID: String, projectID: String, horizonMilliseconds: Int64, limit: Int) throws
        -> [ExplanationAnnotations.ClaimedClick]
    {
        try source.read { connection in
            try connection.query(
                """
                SELECT c.click_id, c.install_id, c.created_at FROM installs i
                JOIN clicks c ON c.project_id = i.project_id AND c.ip_key = i.ip_key
                    AND c.created_at >= i.created_at - ? AND c.created_at <= i.created_at
                WHERE i.id = ? AND i.project_id = ? AND c.install_id IS NOT NULL AND c.install_id <> i.id
                    AND c.claimed_at <= i.created_at AND NOT c.is_bot
                ORDER BY c.created_at DESC LIMIT ?
                """, values: [.integer(horizonMilliseconds), .text(installID), .text(projectID), .integer(Int64(limit))]
            ) { row in
                ExplanationAnnotations.ClaimedClick(
                    clickID: row.string(0), installID: row.string(1), clickedAt: Timestamp(milliseconds: row.int(2)))
            }
        }
    }

    func explanation(installID: String, projectID: String) throws -> String? {
        // An install matched since explanations exist with nothing considered stores none (the
        // hot path of organic installs): its explanation is the empty one.
        try source.read { connection in
            try connection.query(
                """
                SELECT i.explanation, i.created_at >= coalesce((SELECT min(applied_at) FROM schema_migrations WHERE name LIKE '%install_explanation%'), 0)
                FROM installs i WHERE i.id = ? AND i.project_id = ?
                """, values: [.text(installID), .text(projectID)]
            ) { row -> String? in
                row.optionalString(0)
                    ?? (row.bool(1) ? MatchExplanation(decidedBy: "none", minConfidence: 0, considered: 0, candidates: []).emptyText : nil)
            }.first ?? nil
        }
    }

    func events(installID: String, limit: Int) throws -> [EventSummary] {
        try source.read { connection in
            try connection.query(
                """
                SELECT name, received_at, revenue, currency FROM events WHERE install_id = ? ORDER BY occurred_at DESC LIMIT ?
                """, values: [.text(installID), .integer(Int64(limit))]
            ) {
                EventSummary(
                    name: $0.string(0), receivedAt: Timestamp(milliseconds: $0.int(1)), revenue: $0.optionalDouble(2),
                    currency: $0.optionalString(3))
            }
        }
    }

    func payments(installID: String) throws -> [PaymentSummary] {
        try source.read { connection in
            try connection.query(
                """
                SELECT payment_id, amount, currency, created_at, removed_at, verified_by FROM payments WHERE install_id = ?
                ORDER BY created_at DESC LIMIT 500
                """, values: [.text(installID)]
            ) {
                PaymentSummary(
                    paymentID: $0.string(0), amount: $0.double(1), currency: $0.string(2),
                    createdAt: Timestamp(milliseconds: $0.int(3)), removedAt: $0.optionalInt(4).map { Timestamp(milliseconds: $0) },
                    verifiedBy: $0.optionalString(5))
            }
        }
    }

    func skanWindows(installID: String) throws -> [SKANWindowSummary] {
        try source.read { connection in
            try connection.query(
                #"SELECT "window", fine, coarse, locked, updated_at FROM skan_state WHERE install_id = ? ORDER BY "window""#,
                values: [.text(installID)]
            ) {
                SKANWindowSummary(
                    window: Int($0.int(0)), fine: $0.optionalInt(1).map(Int.init), coarse: $0.optionalString(2), locked: $0.bool(3),
                    updatedAt: Timestamp(milliseconds: $0.int(4)))
            }
        }
    }

    private static var clickColumns: String { "click_id, created_at, source, platform, device_class, is_bot, utm_source, utm_campaign, install_id" }

    private static func click(_ row: some ColumnReader) -> ClickSummary {
        ClickSummary(
            clickID: row.string(0), createdAt: Timestamp(milliseconds: row.int(1)), source: row.string(2), platform: row.optionalString(3),
            deviceClass: row.optionalString(4), isBot: row.bool(5), utmSource: row.optionalString(6), utmCampaign: row.optionalString(7),
            installID: row.optionalString(8))
    }

    func click(clickID: String, projectID: String) throws -> ClickSummary? {
        try source.read { connection in
            try connection.query(
                "SELECT \(Self.clickColumns) FROM clicks WHERE click_id = ? AND project_id = ?",
                values: [.text(clickID), .text(projectID)], map: Self.click
            ).first
        }
    }

    func recentClicks(linkID: String, limit: Int) throws -> [ClickSummary] {
        try source.read { connection in
            try connection.query(
                "SELECT \(Self.clickColumns) FROM clicks WHERE link_id = ? ORDER BY created_at DESC LIMIT ?",
                values: [.text(linkID), .integer(Int64(limit))], map: Self.click)
        }
    }

    func linkCountries(linkID: String, since: Timestamp, until: Timestamp, limit: Int) throws -> [CountryCount] {
        try source.read { connection in
            try connection.query(
                """
                SELECT country, count(*), count(install_id) FROM clicks
                WHERE link_id = ? AND created_at >= ? AND created_at < ? AND country IS NOT NULL AND NOT is_bot
                GROUP BY country ORDER BY 2 DESC, 1 LIMIT ?
                """, linkID, since.milliseconds, until.milliseconds, limit,
                map: { CountryCount(country: $0.string(0), clicks: Int($0.int(1)), installs: Int($0.int(2))) })
        }
    }

    func linkDailyClicks(projectID: String, days: Range<Int64>) throws -> [String: [Int64: Int]] {
        guard !days.isEmpty else { return [:] }
        try beforeRollupRead()
        return try source.read { connection in
            var clicks: [String: [Int64: Int]] = [:]
            _ = try connection.query(
                "SELECT link_id, day, clicks FROM rollup_link_days WHERE project_id = ? AND day >= ? AND day < ? AND clicks <> 0 AND link_id <> ''",
                projectID, days.lowerBound, days.upperBound
            ) { row -> Void in clicks[row.string(0), default: [:]][row.int(1), default: 0] += Int(row.int(2)) }
            // Hours not folded into the days yet (migration 0022): the current one, mostly.
            let unfolded = try StatsRepository.unfoldedHours(days.lowerBound * 24..<days.upperBound * 24, connection)
            guard !unfolded.isEmpty else { return clicks }
            _ = try connection.query(
                "SELECT link_id, hour, clicks FROM rollup_link_hours WHERE project_id = ? AND hour >= ? AND hour < ? AND clicks <> 0 AND link_id <> ''",
                projectID, unfolded.lowerBound, unfolded.upperBound
            ) { row -> Void in clicks[row.string(0), default: [:]][row.int(1) / 24, default: 0] += Int(row.int(2)) }
            return clicks
        }
    }

    func linkCohortRows(projectID: String, linkIDs: [String], since: Timestamp, until: Timestamp) throws -> LinkCohortRows {
        guard !linkIDs.isEmpty else { return LinkCohortRows(installs: [], events: []) }
        let links = Array(repeating: "?", count: linkIDs.count).joined(separator: ", ")
        let where_ = "i.link_id IN (\(links)) AND i.project_id = ? AND i.attributed AND NOT i.is_test AND i.created_at >= ? AND i.created_at < ?"
        let values: [SQLValue] = linkIDs.map { .text($0) } + [.text(projectID), .integer(since.milliseconds), .integer(until.milliseconds)]
        return try source.read { connection in
            let installs = try connection.query("SELECT i.created_at FROM installs i WHERE \(where_)", values: values) { $0.int(0) }
            let events = try connection.query(
                """
                SELECT i.id, i.created_at, coalesce(e.charted_at, e.received_at), e.revenue, e.currency FROM installs i
                JOIN events e ON e.install_id = i.id WHERE \(where_)
                """, values: values
            ) {
                CohortTable.InstallEvent(
                    installID: $0.string(0), installAt: $0.int(1), at: $0.int(2), revenue: $0.optionalDouble(3), currency: $0.optionalString(4))
            }
            return LinkCohortRows(installs: installs, events: events)
        }
    }

    func linkSeries(projectID: String, linkID: String, boundaries: [Timestamp]) throws -> [LinkDay] {
        guard boundaries.count >= 2 else { return [] }
        var buckets = boundaries.dropLast().map { LinkDay(day: $0, clicks: 0, botClicks: 0, installs: 0, events: 0) }
        let hour: Int64 = 3_600_000
        let firstHour = Timestamp.floorDiv(boundaries[0].milliseconds, hour)
        let endHour = Timestamp.ceilDiv(boundaries[boundaries.count - 1].milliseconds, hour)
        try beforeRollupRead()
        return try source.read { connection in
            // One key lookup per hour: the table's key leads with the hour, so a range over the
            // hours would read every link's.
            _ = try connection.query(
                """
                WITH RECURSIVE hours(hour) AS (SELECT CAST(? AS BIGINT) UNION ALL SELECT hour + 1 FROM hours WHERE hour + 1 < ?)
                SELECT r.hour, r.clicks, r.bot_clicks, r.attributed_installs, r.events FROM hours
                JOIN rollup_link_hours r ON r.project_id = ? AND r.hour = hours.hour AND r.link_id = ?
                """, values: [.integer(firstHour), .integer(endHour), .text(projectID), .text(linkID)]
            ) { row -> Void in
                let at = row.int(0) * hour
                guard let index = buckets.lastIndex(where: { $0.day.milliseconds <= at }), at < boundaries[boundaries.count - 1].milliseconds else {
                    return
                }
                buckets[index].clicks += Int(row.int(1))
                buckets[index].botClicks += Int(row.int(2))
                buckets[index].installs += Int(row.int(3))
                buckets[index].events += Int(row.int(4))
            }
            return buckets
        }
    }
}
