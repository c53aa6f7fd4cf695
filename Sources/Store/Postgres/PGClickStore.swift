public import Attribution
import Foundation

/// Clicks on PostgreSQL: queued on the node's `PGWriter` (a redirect never waits for its row),
/// with `ClickRepository`'s SQL and row mapping.
public struct PGClickStore: ClickStore {
    let pool: PGPool
    let writer: PGWriter

    public init(pool: PGPool, writer: PGWriter) {
        self.pool = pool
        self.writer = writer
    }

    /// The click, and its link's count when it uses up `max_clicks`, in one statement: a write
    /// whose answer nobody reads before the COMMIT, which `PGWriter` pipelines.
    private static let insertSQL = """
        WITH inserted AS (INSERT \(ClickRepository.insertColumnsAndValues) ON CONFLICT (click_id) DO NOTHING RETURNING link_id)
        UPDATE links SET click_count = click_count + 1 WHERE id = (SELECT link_id FROM inserted) AND ?::boolean
        """

    public func record(countTowardLimit: Bool, _ click: Click, completion: (@Sendable (Result<Void, any Error>) -> Void)?) {
        let values: [any PGBindable] = [click.clickID, click.projectID, click.linkID, click.source.rawValue,
            click.createdAt.milliseconds, click.ip, click.ipKey, click.userAgent, click.acceptLanguage, click.referer,
            click.query.isEmpty ? nil : JSONText.encode(click.query), click.utm.source, click.utm.medium, click.utm.campaign,
            click.utm.term, click.utm.content, click.platform?.rawValue, click.osVersion, click.deviceClass?.rawValue,
            click.isBot, click.screenWidth, click.screenHeight, click.pixelRatio, click.timezone, click.utcOffsetMinutes,
            click.languages.isEmpty ? nil : JSONText.encode(click.languages), click.idfv, click.advertisingID,
            click.networkClickID?.value, click.networkClickID?.parameter,
            countTowardLimit && !click.isBot]  // crawlers do not use up max_clicks
        writer.write(statement: Self.insertSQL, values.map(\.pgValue)) { result in completion?(result.map { _ in () }) }
    }

    public func recordBeacon(clickID: String, signals: BrowserSignals, maximumAgeSeconds: Int64,
                             now: @escaping @Sendable (_ projectID: String) -> Timestamp, delivery: DatabaseWriter.Delivery?,
                             completion: @escaping @Sendable (Result<Bool, any Error>) -> Void) {
        writer.write(delivery: delivery, { connection in
            guard let (projectID, createdAt) = try connection.queryOne(
                "SELECT project_id, created_at FROM clicks WHERE click_id = ? AND source = 'link'", clickID,
                map: { ($0.string(0), $0.int(1)) }) else { return false }
            let now = now(projectID)
            guard createdAt >= now.adding(seconds: -maximumAgeSeconds).milliseconds else { return false }
            return try connection.run(ClickRepository.beaconSQL, signals.screenWidth, signals.screenHeight, signals.pixelRatio,
                signals.timezone, signals.utcOffsetMinutes, signals.languages.map { JSONText.encode($0) }, now.milliseconds, clickID) > 0
        }, completion: completion)
    }

    public func find(clickID: String) throws -> Click? {
        try pool.read { try $0.queryOne("SELECT \(ClickRepository.columns) FROM clicks WHERE click_id = ?", clickID, map: ClickRepository.click) }
    }
}
