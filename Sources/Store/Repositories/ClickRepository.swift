public import Attribution
import Foundation
public import StoreContracts

public struct ClickRepository: ClickStore {
    let database: Database

    public init(database: Database) { self.database = database }

    /// Queues the click for group commit and returns at once. `completion` (optional) runs after
    /// the commit: the click route passes one when the writer is behind, and answers then.
    /// - Parameter countTowardLimit: the link has a `max_clicks` budget, so its stored count must
    ///   follow (other links are counted from the clicks table when needed).
    public func record(countTowardLimit: Bool = false, _ click: Click, completion: (@Sendable (Result<Void, any Error>) -> Void)? = nil) {
        // With a completion an answer waits for the row: no gathering delay for it.
        database.write(
            priority: completion == nil ? .background : .acknowledged,
            { connection in try Self.insert(click, countTowardLimit: countTowardLimit, connection) },
            completion: completion ?? { [writer = database.writer] result in
                if case .failure = result { writer.noteLostWrite() }
            })
    }

    /// The columns a `Click` is read from, by `click(_:)`.
    package static let columns = """
        click_id, project_id, link_id, source, created_at, ip, ip_key, user_agent, accept_language, referer, query,
        utm_source, utm_medium, utm_campaign, utm_term, utm_content, platform, os_version, device_class, is_bot,
        screen_width, screen_height, pixel_ratio, timezone, utc_offset_min, languages, idfv, advertising_id,
        network_click_id, network_click_parameter, variant, country, ip_class
        """

    package static func click(_ row: some ColumnReader) -> Click {
        var click = Click(
            clickID: row.string("click_id"), projectID: row.string("project_id"), linkID: row.optionalString("link_id"),
            source: Click.Source(rawValue: row.string("source")) ?? .link, createdAt: Timestamp(milliseconds: row.int("created_at")),
            ip: row.optionalString("ip"), ipKey: row.optionalString("ip_key"), userAgent: row.optionalString("user_agent"),
            acceptLanguage: row.optionalString("accept_language"), referer: row.optionalString("referer"),
            query: row.optionalString("query").map(JSONText.decodeMap) ?? [:],
            utm: UTM(
                source: row.optionalString("utm_source"), medium: row.optionalString("utm_medium"),
                campaign: row.optionalString("utm_campaign"), term: row.optionalString("utm_term"),
                content: row.optionalString("utm_content")),
            platform: row.optionalString("platform").flatMap(UserAgentInfo.Platform.init(rawValue:)),
            osVersion: row.optionalString("os_version"),
            deviceClass: row.optionalString("device_class").flatMap(UserAgentInfo.DeviceClass.init(rawValue:)),
            isBot: row.bool("is_bot"), screenWidth: row.optionalDouble("screen_width"), screenHeight: row.optionalDouble("screen_height"),
            pixelRatio: row.optionalDouble("pixel_ratio"), timezone: row.optionalString("timezone"),
            utcOffsetMinutes: row.optionalInt("utc_offset_min").map(Int.init),
            languages: row.optionalString("languages").map(JSONText.decodeStrings) ?? [], idfv: row.optionalString("idfv"),
            advertisingID: row.optionalString("advertising_id"),
            networkClickID: row.optionalString("network_click_id").map {
                NetworkClickID(parameter: row.optionalString("network_click_parameter") ?? "", value: $0)
            }, variant: row.optionalString("variant"), country: row.optionalString("country"))
        click.ipClass = row.optionalString("ip_class").map(AddressClass.init(rawValue:))
        return click
    }

    /// The insert of a click, less its verb: SQLite says `INSERT OR IGNORE`, PostgreSQL `ON CONFLICT DO NOTHING`.
    static let insertColumnsAndValues = """
        INTO clicks (click_id, project_id, link_id, source, created_at, ip, ip_key, user_agent, accept_language, referer,
            query, utm_source, utm_medium, utm_campaign, utm_term, utm_content, platform, os_version, device_class, is_bot,
            screen_width, screen_height, pixel_ratio, timezone, utc_offset_min, languages, idfv, advertising_id,
            network_click_id, network_click_parameter, variant, country, ip_class)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    private static let insertSQL = "INSERT OR IGNORE " + insertColumnsAndValues
    /// A beacon's signals added to its click (the SQL both backends run).
    /// The beacon's write, the same on either backend's writer: "now" is the click's project's (a
    /// test-mode project has its own clock), so the project is read first, in the same transaction.
    package static func storeBeacon(
        clickID: String, signals: BrowserSignals, maximumAgeSeconds: Int64, now: (_ projectID: String) -> Timestamp,
        _ connection: some StoreSession
    ) throws -> Bool {
        guard
            let (projectID, createdAt) = try connection.queryOne(
                "SELECT project_id, created_at FROM clicks WHERE click_id = ? AND source = 'link'", clickID,
                map: { ($0.string(0), $0.int(1)) })
        else { return false }
        let now = now(projectID)
        guard createdAt >= now.adding(seconds: -maximumAgeSeconds).milliseconds else { return false }
        return try connection.run(
            beaconSQL, signals.screenWidth, signals.screenHeight, signals.pixelRatio, signals.timezone, signals.utcOffsetMinutes,
            signals.languages.map { JSONText.encode($0) }, now.milliseconds, clickID) > 0
    }

    static let beaconSQL = """
        UPDATE clicks SET screen_width = coalesce(?, screen_width), screen_height = coalesce(?, screen_height),
            pixel_ratio = coalesce(?, pixel_ratio), timezone = coalesce(?, timezone),
            utc_offset_min = coalesce(?, utc_offset_min), languages = coalesce(?, languages), beacon_at = ?
        WHERE click_id = ?
        """

    @_spi(StoreInternals) public static func insert(_ click: Click, countTowardLimit: Bool = false, _ connection: SQLiteConnection) throws {
        // OR IGNORE: a click id an app sends (WarpLink's tap id) arrives again on every retry.
        let inserted = try connection.run(
            insertSQL, click.clickID, click.projectID, click.linkID, click.source.rawValue, click.createdAt.milliseconds, click.ip,
            click.ipKey, click.userAgent, click.acceptLanguage, click.referer,
            click.query.isEmpty ? nil : JSONText.encode(click.query), click.utm.source, click.utm.medium, click.utm.campaign,
            click.utm.term, click.utm.content, click.platform?.rawValue, click.osVersion, click.deviceClass?.rawValue,
            click.isBot, click.screenWidth, click.screenHeight, click.pixelRatio, click.timezone, click.utcOffsetMinutes,
            click.languages.isEmpty ? nil : JSONText.encode(click.languages), click.idfv, click.advertisingID,
            click.networkClickID?.value, click.networkClickID?.parameter, click.variant, click.country, click.ipClass?.rawValue)
        if inserted > 0 { try connection.count(click: RollupFacts.click(click)) }
        if inserted > 0, countTowardLimit, let linkID = click.linkID, !click.isBot {  // crawlers do not use up max_clicks
            try connection.run("UPDATE links SET click_count = click_count + 1 WHERE id = ?", linkID)
        }
    }

    /// Stores the interstitial page's report on its click. Runs on the writer after every click
    /// queued before it, so a beacon never races its own click. False when the click is unknown
    /// or older than `maximumAgeSeconds` by its project's clock.
    public func recordBeacon(
        clickID: String, signals: BrowserSignals, maximumAgeSeconds: Int64,
        now: @escaping @Sendable (_ projectID: String) -> Timestamp, delivery: WriteDelivery? = nil,
        completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) {
        database.write(
            delivery: delivery,
            { connection in
                try Self.storeBeacon(clickID: clickID, signals: signals, maximumAgeSeconds: maximumAgeSeconds, now: now, connection)
            }, completion: completion)
    }

    public func find(clickID: String) throws -> Click? {
        try database.read { connection in
            try connection.queryOne("SELECT \(Self.columns) FROM clicks WHERE click_id = ?", clickID, map: Self.click)
        }
    }

    public func latestRelayTaps() throws -> [(projectID: String, regionKey: String, at: Int64)] {
        try database.read { connection in
            try connection.query(Self.latestRelayTapsSQL) { (projectID: $0.string(0), regionKey: $0.string(1), at: $0.int(2)) }
        }
    }

    /// Per project, a range of `clicks_by_ip` (the relay keys sort between `relay:` and `relay;`).
    package static let latestRelayTapsSQL = """
        SELECT c.project_id, c.ip_key, max(c.created_at) FROM projects p
        JOIN clicks c ON c.project_id = p.id AND c.ip_key >= 'relay:' AND c.ip_key < 'relay;'
        GROUP BY c.project_id, c.ip_key
        """
}
