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

    public func linkDays(projectID: String, linkID: String, since: Timestamp, until: Timestamp) throws -> [LinkDay] {
        let day: Int64 = 86_400_000
        return try database.read { connection in
            try connection.query("""
                SELECT day, clicks, bot_clicks, attributed_installs, events FROM rollup_link_days
                WHERE project_id = ? AND day >= ? AND day < ? AND link_id = ? ORDER BY day
                """, projectID, StatsRepository.floorDiv(since.milliseconds, day), StatsRepository.ceilDiv(until.milliseconds, day), linkID) {
                LinkDay(day: Timestamp(milliseconds: $0.int(0) * day), clicks: Int($0.int(1)), botClicks: Int($0.int(2)),
                        installs: Int($0.int(3)), events: Int($0.int(4)))
            }
        }
    }
}
