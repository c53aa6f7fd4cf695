public import Attribution
import Foundation
public import PostgresClient
import SQLValues
@_spi(StoreInternals) import Store
public import StoreContracts

/// Clicks on PostgreSQL: queued on the node's `PGWriter` (a redirect waits for its row only when the writer is behind),
/// with `ClickRepository`'s SQL and row mapping.
public struct PGClickStore: ClickStore {
    let pool: PGPool
    let writer: PGWriter

    public init(pool: PGPool, writer: PGWriter) {
        self.pool = pool
        self.writer = writer
    }

    /// Clicks, many to a statement (`PGWriter.RowsStatement`), and their links' counts for those
    /// that use up `max_clicks`: the last of each row's values is whether it counts, kept out of the
    /// insert by a join on the click id.
    private static let insert = PGWriter.RowsStatement { rows in
        let columns = 32
        let tuples = (0..<rows).map { row in
            "(" + (0..<(columns + 1)).map { "$\(row * (columns + 1) + $0 + 1)" + ($0 == columns ? "::boolean" : "") }.joined(separator: ", ") + ")"
        }
        let names =
            "click_id, project_id, link_id, source, created_at, ip, ip_key, user_agent, accept_language, referer, query, utm_source, "
            + "utm_medium, utm_campaign, utm_term, utm_content, platform, os_version, device_class, is_bot, screen_width, screen_height, "
            + "pixel_ratio, timezone, utc_offset_min, languages, idfv, advertising_id, network_click_id, network_click_parameter, variant, country"
        let typed = names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return """
            WITH input AS (SELECT * FROM (VALUES \(tuples.joined(separator: ", "))) AS v(\(names), counts)),
            inserted AS (
                INSERT INTO clicks (\(names))
                SELECT \(typed.map { "CAST(\($0) AS \(PGClickStore.columnTypes[$0]!))" }.joined(separator: ", ")) FROM input
                ON CONFLICT (click_id) DO NOTHING RETURNING click_id, link_id)
            UPDATE links SET click_count = click_count + counted.n
            FROM (SELECT i.link_id, count(*) AS n FROM inserted i JOIN input ON input.click_id = i.click_id
                  WHERE input.counts GROUP BY i.link_id) AS counted
            WHERE links.id = counted.link_id
            """
    }

    /// The clicks table's column types (postgres/0001, 0020), for the VALUES list's text parameters.
    static let columnTypes: [String: String] = [
        "click_id": "TEXT", "project_id": "TEXT", "link_id": "TEXT", "source": "TEXT", "created_at": "BIGINT", "ip": "TEXT",
        "ip_key": "TEXT", "user_agent": "TEXT", "accept_language": "TEXT", "referer": "TEXT", "query": "TEXT", "utm_source": "TEXT",
        "utm_medium": "TEXT", "utm_campaign": "TEXT", "utm_term": "TEXT", "utm_content": "TEXT", "platform": "TEXT", "os_version": "TEXT",
        "device_class": "TEXT", "is_bot": "BOOLEAN", "screen_width": "DOUBLE PRECISION", "screen_height": "DOUBLE PRECISION",
        "pixel_ratio": "DOUBLE PRECISION", "timezone": "TEXT", "utc_offset_min": "BIGINT", "languages": "TEXT", "idfv": "TEXT",
        "advertising_id": "TEXT", "network_click_id": "TEXT", "network_click_parameter": "TEXT", "variant": "TEXT", "country": "TEXT",
    ]

    public func record(countTowardLimit: Bool, _ click: Click, completion: (@Sendable (Result<Void, any Error>) -> Void)?) {
        let values: [any SQLBindable] = [
            click.clickID, click.projectID, click.linkID, click.source.rawValue,
            click.createdAt.milliseconds, click.ip, click.ipKey, click.userAgent, click.acceptLanguage, click.referer,
            click.query.isEmpty ? nil : JSONText.encode(click.query), click.utm.source, click.utm.medium, click.utm.campaign,
            click.utm.term, click.utm.content, click.platform?.rawValue, click.osVersion, click.deviceClass?.rawValue,
            click.isBot, click.screenWidth, click.screenHeight, click.pixelRatio, click.timezone, click.utcOffsetMinutes,
            click.languages.isEmpty ? nil : JSONText.encode(click.languages), click.idfv, click.advertisingID,
            click.networkClickID?.value, click.networkClickID?.parameter, click.variant, click.country,
            countTowardLimit && !click.isBot,
        ]  // crawlers do not use up max_clicks
        writer.write(row: values.map(\.sqlValue), into: Self.insert) { [writer] result in
            guard let completion else {
                if case .failure = result { writer.noteLostWrite() }
                return
            }
            completion(result)
        }
    }

    public func recordBeacon(
        clickID: String, signals: BrowserSignals, maximumAgeSeconds: Int64,
        now: @escaping @Sendable (_ projectID: String) -> Timestamp, delivery: WriteDelivery?,
        completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) {
        writer.write(
            delivery: delivery, ordered: true,
            { connection in  // after its click
                try ClickRepository.storeBeacon(
                    clickID: clickID, signals: signals, maximumAgeSeconds: maximumAgeSeconds, now: now, connection)
            }, completion: completion)
    }

    public func find(clickID: String) throws -> Click? {
        try pool.read { try $0.queryOne("SELECT \(ClickRepository.columns) FROM clicks WHERE click_id = ?", clickID, map: ClickRepository.click) }
    }
}
