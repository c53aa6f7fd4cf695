import Attribution

/// The `ClickSource` of one install's write transaction: the candidate clicks the cascade asks for,
/// read on the writer connection that then stores the install and claims the click, so no other
/// install can claim it in between.
struct TransactionClicks<Session: StoreSession>: ClickSource {
    let connection: Session
    let projectID: String
    /// The project's window, for clicks whose link and template set none.
    let defaultWindowHours: Int
    /// Clicks another transaction claimed or is claiming (PostgreSQL): no longer candidates.
    var taken: Set<String> = []

    func click(referredBy clickID: String) throws -> CandidateClick? {
        try candidates(.clickID, clickID, limit: 1).first
    }

    func clicks(onLink linkID: String, limit: Int) throws -> [CandidateClick] {
        try candidates(.link, linkID, limit: limit)
    }

    func clicks(idfv: String, limit: Int) throws -> [CandidateClick] {
        try candidates(.idfv, idfv, limit: limit)
    }

    func clicks(advertisingID: String, limit: Int) throws -> [CandidateClick] {
        try candidates(.advertisingID, advertisingID, limit: limit)
    }

    func clicks(network ipKey: String, after: Timestamp, limit: Int) throws -> [CandidateClick] {
        try candidates(.network, ipKey, after.milliseconds, limit: limit)
    }

    /// The clicks, newest first, with each link's window resolved once per distinct link rather
    /// than per row.
    private func candidates<each Value: StoreArgument>(_ filter: CandidateFilter, _ values: repeat each Value, limit: Int) throws -> [CandidateClick] {
        var clicks = try connection.query(filter.sql, projectID, repeat each values, limit) { row in
            let ratio = row.optionalDouble(8)
            return CandidateClick(
                clickID: row.string(0), linkID: row.optionalString(1), createdAt: Timestamp(milliseconds: row.int(2)),
                platform: row.optionalString(3).flatMap(UserAgentInfo.Platform.init(rawValue:)), osVersion: row.optionalString(4),
                deviceClass: row.optionalString(5).flatMap(UserAgentInfo.DeviceClass.init(rawValue:)),
                screen: ScreenSize(points: row.optionalDouble(6), row.optionalDouble(7), scale: ratio),
                screenPoints: ScreenSize(points: row.optionalDouble(6), row.optionalDouble(7), scale: 1),
                timezone: row.optionalString(9), utcOffsetMinutes: row.optionalInt(10).map(Int.init),
                languages: row.optionalString(11).map(JSONText.decodeStrings) ?? [], userAgent: row.optionalString(12),
                ipKey: row.optionalString(13), windowHours: defaultWindowHours)
        }
        if !taken.isEmpty { clicks.removeAll { taken.contains($0.clickID) } }
        var windows: [String: Int] = [:]
        for index in clicks.indices {
            guard let linkID = clicks[index].linkID else { continue }
            if windows[linkID] == nil {
                windows[linkID] = try connection.queryOne(CandidateFilter.windowOfLink, defaultWindowHours, linkID) { Int($0.int(0)) } ?? defaultWindowHours
            }
            clicks[index].windowHours = windows[linkID]!
        }
        return clicks
    }
}

/// Which clicks a candidate query selects; each has its SQL text built once.
enum CandidateFilter {
    case clickID, link, idfv, advertisingID
    /// Same network (`ip_key`), newer than a time.
    case network

    private static func sql(_ condition: String) -> String {
        """
        SELECT c.click_id, c.link_id, c.created_at, c.platform, c.os_version, c.device_class, c.screen_width, c.screen_height,
            c.pixel_ratio, c.timezone, c.utc_offset_min, c.languages, c.user_agent, c.ip_key
        FROM clicks c
        WHERE c.project_id = ? AND \(condition) AND c.is_bot = FALSE AND c.claimed_at IS NULL
        ORDER BY c.created_at DESC LIMIT ?
        """
    }

    private static let byClickID = sql("c.click_id = ?")
    private static let byLink = sql("c.link_id = ?")
    private static let byIDFV = sql("c.idfv = ?")
    private static let byAdvertisingID = sql("c.advertising_id = ?")
    private static let byNetwork = sql("c.ip_key = ? AND c.created_at > ?")

    var sql: String {
        switch self {
        case .clickID: Self.byClickID
        case .link: Self.byLink
        case .idfv: Self.byIDFV
        case .advertisingID: Self.byAdvertisingID
        case .network: Self.byNetwork
        }
    }

    static let windowOfLink = """
        SELECT coalesce(l.attribution_window_hours, t.attribution_window_hours, ?)
        FROM links l LEFT JOIN templates t ON t.id = l.template_id WHERE l.id = ?
        """
}
