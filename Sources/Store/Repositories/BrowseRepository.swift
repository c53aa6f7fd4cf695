public import Attribution

public struct BrowseRepository: BrowseStore {
    let database: Database

    public init(database: Database) { self.database = database }

    private static let installColumns = """
        i.id, i.created_at, i.api, i.platform, i.match_type, i.attributed, i.confidence, i.matched_factors, i.link_id, l.short_code,
        i.click_id, i.user_id, i.country
        """

    private static func install(_ row: Row) -> InstallSummary {
        InstallSummary(id: row.string(0), createdAt: Timestamp(milliseconds: row.int(1)), api: row.string(2), platform: row.optionalString(3),
                       matchType: row.string(4), attributed: row.bool(5), confidence: row.optionalDouble(6) ?? 0,
                       matchedFactors: JSONText.decodeStrings(row.string(7)), linkID: row.optionalString(8), shortCode: row.optionalString(9),
                       clickID: row.optionalString(10), userID: row.optionalString(11), country: row.optionalString(12))
    }

    public func recentInstalls(projectID: String, before: Timestamp?, limit: Int) throws -> [InstallSummary] {
        try database.read { connection in
            try connection.query("""
                SELECT \(Self.installColumns) FROM installs i LEFT JOIN links l ON l.id = i.link_id
                WHERE i.project_id = ? AND i.created_at < ? ORDER BY i.created_at DESC, i.id LIMIT ?
                """, projectID, before?.milliseconds ?? Int64.max, limit, map: Self.install)
        }
    }

    public func install(id: String, projectID: String) throws -> InstallSummary? {
        try database.read { connection in
            try connection.queryOne("""
                SELECT \(Self.installColumns) FROM installs i LEFT JOIN links l ON l.id = i.link_id WHERE i.id = ? AND i.project_id = ?
                """, id, projectID, map: Self.install)
        }
    }

    public func events(installID: String, limit: Int) throws -> [EventSummary] {
        try database.read { connection in
            try connection.query("""
                SELECT name, received_at, revenue, currency FROM events WHERE install_id = ? ORDER BY occurred_at DESC LIMIT ?
                """, installID, limit) {
                EventSummary(name: $0.string(0), receivedAt: Timestamp(milliseconds: $0.int(1)), revenue: $0.optionalDouble(2),
                             currency: $0.optionalString(3))
            }
        }
    }

    public func payments(installID: String) throws -> [PaymentSummary] {
        try database.read { connection in
            try connection.query("""
                SELECT payment_id, amount, currency, created_at, removed_at FROM payments WHERE install_id = ? ORDER BY created_at DESC LIMIT 500
                """, installID) {
                PaymentSummary(paymentID: $0.string(0), amount: $0.double(1), currency: $0.string(2),
                               createdAt: Timestamp(milliseconds: $0.int(3)), removedAt: $0.optionalInt(4).map { Timestamp(milliseconds: $0) })
            }
        }
    }

    public func skanWindows(installID: String) throws -> [SKANWindowSummary] {
        try database.read { connection in
            try connection.query("SELECT window, fine, coarse, locked, updated_at FROM skan_state WHERE install_id = ? ORDER BY window", installID) {
                SKANWindowSummary(window: Int($0.int(0)), fine: $0.optionalInt(1).map(Int.init), coarse: $0.optionalString(2), locked: $0.bool(3),
                                  updatedAt: Timestamp(milliseconds: $0.int(4)))
            }
        }
    }

    private static let clickColumns = "click_id, created_at, source, platform, device_class, is_bot, utm_source, utm_campaign, install_id"

    private static func click(_ row: Row) -> ClickSummary {
        ClickSummary(clickID: row.string(0), createdAt: Timestamp(milliseconds: row.int(1)), source: row.string(2), platform: row.optionalString(3),
                     deviceClass: row.optionalString(4), isBot: row.bool(5), utmSource: row.optionalString(6), utmCampaign: row.optionalString(7),
                     installID: row.optionalString(8))
    }

    public func click(clickID: String, projectID: String) throws -> ClickSummary? {
        try database.read { connection in
            try connection.queryOne("SELECT \(Self.clickColumns) FROM clicks WHERE click_id = ? AND project_id = ?", clickID, projectID,
                                    map: Self.click)
        }
    }

    public func recentClicks(linkID: String, limit: Int) throws -> [ClickSummary] {
        try database.read { connection in
            try connection.query("SELECT \(Self.clickColumns) FROM clicks WHERE link_id = ? ORDER BY created_at DESC LIMIT ?", linkID, limit,
                                 map: Self.click)
        }
    }

    public func linkSeries(projectID: String, linkID: String, boundaries: [Timestamp]) throws -> [LinkDay] {
        guard boundaries.count >= 2 else { return [] }
        var buckets = boundaries.dropLast().map { LinkDay(day: $0, clicks: 0, botClicks: 0, installs: 0, events: 0) }
        let hour: Int64 = 3_600_000
        let firstHour = StatsRepository.floorDiv(boundaries[0].milliseconds, hour)
        let endHour = StatsRepository.ceilDiv(boundaries[boundaries.count - 1].milliseconds, hour)
        return try database.read { connection in
            // One key lookup per hour: the table's key leads with the hour, so a range over the
            // hours would read every link's.
            _ = try connection.query("""
                WITH RECURSIVE hours(hour) AS (SELECT ?2 UNION ALL SELECT hour + 1 FROM hours WHERE hour + 1 < ?3)
                SELECT r.hour, r.clicks, r.bot_clicks, r.attributed_installs, r.events FROM hours
                JOIN rollup_link_hours r ON r.project_id = ?1 AND r.hour = hours.hour AND r.link_id = ?4
                """, projectID, firstHour, endHour, linkID) { row -> Void in
                let at = row.int(0) * hour
                guard let index = buckets.lastIndex(where: { $0.day.milliseconds <= at }), at < boundaries[boundaries.count - 1].milliseconds else { return }
                buckets[index].clicks += Int(row.int(1))
                buckets[index].botClicks += Int(row.int(2))
                buckets[index].installs += Int(row.int(3))
                buckets[index].events += Int(row.int(4))
            }
            return buckets
        }
    }
}
