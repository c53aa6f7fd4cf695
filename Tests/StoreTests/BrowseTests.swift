import Attribution
import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
import SQLValues
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// The dashboard's reads (`Browse`) are one implementation over either backend's sessions: the
/// same rows give the same answers on SQLite and PostgreSQL.
@Suite(.serialized) struct BrowseTests {
    static let start: Int64 = 1_760_000_000_000
    static let hour: Int64 = 3_600_000

    static var rows: [(sql: String, values: [SQLValue])] {
        var rows: [(String, [SQLValue])] = [
            ("INSERT INTO projects (id, name, token_hash, created_at, updated_at) VALUES ('p', 'Shop', ?, 0, 0)", [.bytes([2])]),
            (
                "INSERT INTO links (id, project_id, short_code, created_at, updated_at) VALUES ('l1', 'p', 'sale', 0, 0), ('l2', 'p', 'quiet', 0, 0)",
                []
            ),
        ]
        for index in 0..<6 {
            rows.append(
                (
                    "INSERT INTO clicks (click_id, project_id, link_id, created_at, platform, is_bot, utm_source, install_id) VALUES (?, 'p', 'l1', ?, 'ios', ?, 'ads', ?)",
                    [.text("c\(index)"), .integer(start + Int64(index) * hour), .boolean(index == 5), index == 0 ? .text("i0") : .null]
                ))
        }
        for index in 0..<4 {
            rows.append(
                (
                    """
                    INSERT INTO installs (id, project_id, api, platform, created_at, last_seen_at, match_type, attributed, confidence, matched_factors, link_id, click_id, country)
                    VALUES (?, 'p', 'linkrunner', 'ios', ?, 0, ?, ?, ?, ?, ?, ?, 'DE')
                    """,
                    [
                        .text("i\(index)"), .integer(start + Int64(index) * hour), .text(index < 2 ? "probabilistic" : "none"), .boolean(index < 2),
                        .real(index < 2 ? 0.85 : 0), .text(index < 2 ? #"["ip","timezone"]"# : "[]"), index < 2 ? .text("l1") : .null,
                        index == 0 ? .text("c0") : .null,
                    ]
                ))
        }
        rows.append(
            (
                "INSERT INTO events (id, project_id, install_id, name, revenue, currency, occurred_at, received_at) VALUES ('e1', 'p', 'i0', 'purchase', 9.99, 'USD', 1, ?)",
                [.integer(start + hour)]
            ))
        rows.append(
            (
                "INSERT INTO events (id, project_id, install_id, name, occurred_at, received_at) VALUES ('e2', 'p', 'i0', 'open', 2, ?)",
                [.integer(start + 2 * hour)]
            ))
        rows.append(
            (
                "INSERT INTO payments (id, project_id, install_id, payment_id, user_id, amount, currency, created_at, removed_at) VALUES ('pay', 'p', 'i0', 'x', 'u', 4.5, 'EUR', ?, ?)",
                [.integer(start + 3 * hour), .integer(start + 4 * hour)]
            ))
        rows.append(
            (
                #"INSERT INTO skan_state (install_id, "window", fine, coarse, locked, updated_at) VALUES ('i0', 2, NULL, 'high', ?, 5), ('i0', 1, 12, NULL, ?, 4)"#,
                [.boolean(false), .boolean(true)]
            ))
        // Hour rollups of a link without rows of its own (SQLite's triggers count l1's rows into its rollups).
        for hourIndex in 0..<30 {
            rows.append(
                (
                    "INSERT INTO rollup_link_hours (project_id, hour, link_id, clicks, bot_clicks, attributed_installs, events) VALUES ('p', ?, 'l2', ?, 1, ?, 2)",
                    [.integer(start / hour + Int64(hourIndex)), .integer(Int64(hourIndex + 1)), .integer(Int64(hourIndex % 2))]
                ))
        }
        return rows
    }

    struct Answers: Equatable {
        var recent: [InstallSummary], page: [InstallSummary], one: InstallSummary?, events: [EventSummary], payments: [PaymentSummary]
        var skan: [SKANWindowSummary], click: ClickSummary?, clicks: [ClickSummary], series: [LinkDay]
    }

    static func answers(_ browse: any BrowseStore) throws -> Answers {
        let boundaries = (0...3).map { Timestamp(milliseconds: start - 2 * hour + Int64($0) * 12 * hour) }
        return Answers(
            recent: try browse.recentInstalls(projectID: "p", test: false, before: nil, limit: 10),
            page: try browse.recentInstalls(projectID: "p", test: false, before: Timestamp(milliseconds: start + 2 * hour), limit: 1),
            one: try browse.install(id: "i0", projectID: "p"), events: try browse.events(installID: "i0", limit: 10),
            payments: try browse.payments(installID: "i0"), skan: try browse.skanWindows(installID: "i0"),
            click: try browse.click(clickID: "c5", projectID: "p"), clicks: try browse.recentClicks(linkID: "l1", limit: 4),
            series: try browse.linkSeries(projectID: "p", linkID: "l2", boundaries: boundaries))
    }

    @Test func bothBackendsAnswerTheSame() throws {
        let temp = try TemporaryDatabase()
        try temp.database.writeAndWait { connection in for row in Self.rows { try connection.run(row.sql, values: row.values) } }
        let sqlite = try Self.answers(SQLiteStore(database: temp.database).browse)
        let url = try PostgresCluster.shared().newDatabase()
        let connection = try PGConnection(url: url).migrated()
        for row in Self.rows { try connection.run(row.sql, values: row.values) }
        let postgres = try Self.answers(PGPool(url: url, size: 2, errors: .store).browseStore())
        #expect(sqlite == postgres)

        #expect(sqlite.recent.map(\.id) == ["i3", "i2", "i1", "i0"] && sqlite.page.map(\.id) == ["i1"])
        #expect(sqlite.one?.shortCode == "sale" && sqlite.one?.matchedFactors == ["ip", "timezone"] && sqlite.one?.attributed == true)
        #expect(sqlite.events.map(\.name) == ["open", "purchase"] && sqlite.payments.first?.removedAt != nil)
        #expect(sqlite.skan.map(\.window) == [1, 2] && sqlite.skan.first?.locked == true && sqlite.skan.last?.coarse == "high")
        #expect(sqlite.click?.isBot == true && sqlite.clicks.map(\.clickID) == ["c5", "c4", "c3", "c2"])
        // Buckets of 12 hours from two hours before `start`; the first rollup hour begins 53 minutes
        // before `start`, so the buckets hold hours 0–10, 11–22 and 23–29 (clicks = hour + 1).
        let expectedClicks: [Int] = [66, 210, 189]
        #expect(sqlite.series.map(\.clicks) == expectedClicks)
        #expect(sqlite.series.map(\.botClicks) == [11, 12, 7] && sqlite.series.map(\.events) == [22, 24, 14])
    }
}
