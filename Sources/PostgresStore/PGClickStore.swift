public import Attribution
import Counting
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

    /// Clicks, many to a statement (`PGWriter.RowsStatement`), their rollup deltas, and their
    /// links' counts for those that use up `max_clicks`. Each row's values are the click's, then
    /// whether it counts toward the limit, then what `Counting.click` adds for it (`countColumns`):
    /// those of the rows inserted go to the delta tables, added up by hour.
    private static let insert = PGWriter.RowsStatement { rows in
        let columns = 33 + 1 + countColumns.count
        let tuples = (0..<rows).map { row in
            "(" + (0..<columns).map { "$\(row * columns + $0 + 1)" + ($0 == 33 ? "::boolean" : "") }.joined(separator: ", ") + ")"
        }
        let names =
            "click_id, project_id, link_id, source, created_at, ip, ip_key, user_agent, accept_language, referer, query, utm_source, "
            + "utm_medium, utm_campaign, utm_term, utm_content, platform, os_version, device_class, is_bot, screen_width, screen_height, "
            + "pixel_ratio, timezone, utc_offset_min, languages, idfv, advertising_id, network_click_id, network_click_parameter, variant, country, ip_class"
        let typed = names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let hour = "CAST(input.created_at AS BIGINT) / 3600000 * 3600000"
        let zeros = Array(repeating: "0", count: Counters.columns.count - 2).joined(separator: ", ")
        return """
            WITH input AS (SELECT * FROM (VALUES \(tuples.joined(separator: ", "))) AS v(\(names), counts, \(countColumns.joined(separator: ", ")))),
            inserted AS (
                INSERT INTO clicks (\(names))
                SELECT \(typed.map { "CAST(\($0) AS \(PGClickStore.columnTypes[$0]!))" }.joined(separator: ", ")) FROM input
                ON CONFLICT (click_id) DO NOTHING RETURNING click_id, link_id),
            counted AS (
                INSERT INTO rollup_count_deltas (project_id, at, link_id, in_hours, counts)
                SELECT input.project_id, \(hour), input.c_link, TRUE,
                    CAST(ARRAY[sum(CAST(input.c_clicks AS BIGINT)), sum(CAST(input.c_bot_clicks AS BIGINT)), \(zeros)] AS BIGINT[])
                FROM inserted i JOIN input ON input.click_id = i.click_id GROUP BY 1, 2, 3),
            tallied AS (
                INSERT INTO rollup_tally_deltas (project_id, at, dimension, value, installs)
                SELECT input.project_id, \(hour), t.dimension, t.value, count(*)
                FROM inserted i JOIN input ON input.click_id = i.click_id
                CROSS JOIN LATERAL (VALUES \((1...maxTallies).map { "(input.t\($0)_dimension, input.t\($0)_value)" }.joined(separator: ", "))) AS t(dimension, value)
                WHERE t.dimension IS NOT NULL GROUP BY 1, 2, 3, 4)
            UPDATE links SET click_count = click_count + counted.n
            FROM (SELECT i.link_id, count(*) AS n FROM inserted i JOIN input ON input.click_id = i.click_id
                  WHERE input.counts GROUP BY i.link_id) AS counted
            WHERE links.id = counted.link_id
            """
    }

    /// The most tallies `Counting.click` adds for one click (a human one's four properties).
    static let maxTallies = 4
    /// A click's deltas as row values: its link ('' for none), its counts, its tallies.
    static let countColumns =
        ["c_link", "c_clicks", "c_bot_clicks"] + (1...maxTallies).flatMap { ["t\($0)_dimension", "t\($0)_value"] }

    /// What `Counting.click` adds for the click, as `countColumns`' values.
    static func countValues(_ click: Click) -> [SQLValue] {
        let deltas = Counting.click(
            ClickFact(
                projectID: click.projectID, at: click.createdAt.milliseconds, linkID: click.linkID, isBot: click.isBot,
                platform: click.platform?.rawValue, osVersion: click.osVersion, country: click.country, referer: click.referer))
        // A click adds one count of clicks or bot clicks, and tallies (no money): what the row holds.
        precondition(
            deltas.counts.count == 1 && deltas.money.isEmpty && deltas.tallies.count <= maxTallies && deltas.tallies.allSatisfy { $0.count == 1 })
        let count = deltas.counts[0]
        var values: [SQLValue] = [.text(count.linkID), .integer(count.counters.clicks), .integer(count.counters.botClicks)]
        for index in 0..<maxTallies {
            if index < deltas.tallies.count {
                values += [.text(deltas.tallies[index].dimension), .text(deltas.tallies[index].value)]
            } else {
                values += [.null, .null]
            }
        }
        return values
    }

    /// The clicks table's column types (postgres/0001, 0020), for the VALUES list's text parameters.
    static let columnTypes: [String: String] = [
        "click_id": "TEXT", "project_id": "TEXT", "link_id": "TEXT", "source": "TEXT", "created_at": "BIGINT", "ip": "TEXT",
        "ip_key": "TEXT", "user_agent": "TEXT", "accept_language": "TEXT", "referer": "TEXT", "query": "TEXT", "utm_source": "TEXT",
        "utm_medium": "TEXT", "utm_campaign": "TEXT", "utm_term": "TEXT", "utm_content": "TEXT", "platform": "TEXT", "os_version": "TEXT",
        "device_class": "TEXT", "is_bot": "BOOLEAN", "screen_width": "DOUBLE PRECISION", "screen_height": "DOUBLE PRECISION",
        "pixel_ratio": "DOUBLE PRECISION", "timezone": "TEXT", "utc_offset_min": "BIGINT", "languages": "TEXT", "idfv": "TEXT",
        "advertising_id": "TEXT", "network_click_id": "TEXT", "network_click_parameter": "TEXT", "variant": "TEXT", "country": "TEXT",
        "ip_class": "TEXT",
    ]

    public func record(countTowardLimit: Bool, _ click: Click, completion: (@Sendable (Result<Void, any Error>) -> Void)?) {
        let values: [any SQLBindable] = [
            click.clickID, click.projectID, click.linkID, click.source.rawValue,
            click.createdAt.milliseconds, click.ip, click.ipKey, click.userAgent, click.acceptLanguage, click.referer,
            click.query.isEmpty ? nil : JSONText.encode(click.query), click.utm.source, click.utm.medium, click.utm.campaign,
            click.utm.term, click.utm.content, click.platform?.rawValue, click.osVersion, click.deviceClass?.rawValue,
            click.isBot, click.screenWidth, click.screenHeight, click.pixelRatio, click.timezone, click.utcOffsetMinutes,
            click.languages.isEmpty ? nil : JSONText.encode(click.languages), click.idfv, click.advertisingID,
            click.networkClickID?.value, click.networkClickID?.parameter, click.variant, click.country, click.ipClass?.rawValue,
            countTowardLimit && !click.isBot,
        ]  // crawlers do not use up max_clicks
        writer.write(row: values.map(\.sqlValue) + Self.countValues(click), into: Self.insert) { [writer] result in
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

    public func latestRelayTaps() throws -> [(projectID: String, regionKey: String, at: Int64)] {
        try pool.read { try $0.query(ClickRepository.latestRelayTapsSQL) { (projectID: $0.string(0), regionKey: $0.string(1), at: $0.int(2)) } }
    }
}
