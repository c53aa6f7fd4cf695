import Attribution
import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
import SQLValues
@_spi(StoreInternals) import Store
import StoreContracts
import TestSupport
import Testing

/// SKAN evaluation reads an install's events and payments and keeps its windows' state; it runs
/// on either backend's session and must load and store the same things on both.
@Suite(.serialized) struct SKANSessionTests {
    static let schemaJSON = #"""
        { "enabled": true, "base_currency": "USD", "fx": {"EUR": 1.10},
          "windows": {
            "w1": { "fine": { "mode": "bitfield", "segments": [
                      {"type": "revenue_bucket", "offset": 0, "width": 3, "edges": [0.01, 5, 10, 25, 50, 100, 200]},
                      {"type": "event_flag", "offset": 3, "event": "signup"},
                      {"type": "event_flag", "offset": 4, "event": "purchase"} ] },
                    "coarse": { "rules": [ {"value": "high", "any": [{"revenue_gte": 25}]},
                                           {"value": "medium", "any": [{"event": "signup"}]} ], "default": "low" } } } }
        """#
    static let firstInit: Int64 = 1_763_700_000_000
    static let hour: Int64 = 3_600_000

    /// The rows one install has: its first init, a signup, a purchase in EUR, a completed payment
    /// and a removed one (which must not count).
    static let rows: [(sql: String, values: [SQLValue])] = [
        ("INSERT INTO projects (id, name, token_hash, created_at, updated_at) VALUES ('p', 'Shop', ?, 0, 0)", [.bytes([1])]),
        (
            "INSERT INTO installs (id, project_id, api, platform, created_at, last_seen_at) VALUES ('i1', 'p', 'linkrunner', 'ios', ?, ?)",
            [.integer(firstInit), .integer(firstInit)]
        ),
        (
            "INSERT INTO events (id, project_id, install_id, name, occurred_at, received_at) VALUES ('e1', 'p', 'i1', 'signup', 0, ?)",
            [.integer(firstInit + hour)]
        ),
        (
            "INSERT INTO events (id, project_id, install_id, name, revenue, currency, occurred_at, received_at) VALUES ('e2', 'p', 'i1', 'purchase', 12.5, 'EUR', 0, ?)",
            [.integer(firstInit + 2 * hour)]
        ),
        (
            "INSERT INTO payments (id, project_id, install_id, payment_id, user_id, amount, currency, created_at) VALUES ('pay1', 'p', 'i1', 'x1', 'u', 9.5, 'USD', ?)",
            [.integer(firstInit + 3 * hour)]
        ),
        (
            "INSERT INTO payments (id, project_id, install_id, payment_id, user_id, amount, currency, created_at, removed_at) VALUES ('pay2', 'p', 'i1', 'x2', 'u', 500, 'USD', ?, ?)",
            [.integer(firstInit + 3 * hour), .integer(firstInit + 4 * hour)]
        ),
    ]

    struct Outcome: Equatable {
        var first: SKANValues?
        var again: SKANValues?
        var changes: Int
        var changesAgain: Int
        var stored: [String]
    }

    static func evaluateTwice(_ session: some StoreSession, context: SKANStore.Context) throws -> Outcome {
        for row in rows { try session.run(row.sql, values: row.values) }
        let now = Timestamp(milliseconds: firstInit + 5 * hour)
        var changes = 0
        var changesAgain = 0
        let first = try SKANStore.evaluate(installID: "i1", context: context, now: now, session: session) { _ in changes += 1 }
        let again = try SKANStore.evaluate(installID: "i1", context: context, now: now, session: session) { _ in changesAgain += 1 }
        let stored = try session.query(
            #"SELECT "window", fine, coarse, locked FROM skan_state WHERE install_id = 'i1' ORDER BY "window""#, values: []
        ) {
            "\($0.int(0)) \($0.optionalInt(1).map(String.init) ?? "-") \($0.optionalString(2) ?? "-") \($0.bool(3))"
        }
        return Outcome(first: first, again: again, changes: changes, changesAgain: changesAgain, stored: stored)
    }

    @Test func bothBackendsLoadAndStoreTheSame() throws {
        let schema = try SKANSchemaParser.parse(json: Self.schemaJSON)
        let context = SKANStore.Context(schema: schema)
        let temp = try TemporaryDatabase()
        let sqlite = try temp.database.writeAndWait { connection in try Self.evaluateTwice(connection, context: context) }
        let postgres = try Self.evaluateTwice(try PGConnection(url: try PostgresCluster.shared().newDatabase()).migrated(), context: context)
        #expect(sqlite == postgres)
        // What the domain says for the same events, the removed payment left out.
        let events = [
            SKANEvent(name: "signup", receivedAt: Timestamp(milliseconds: Self.firstInit + Self.hour), amount: nil, currency: nil),
            SKANEvent(name: "purchase", receivedAt: Timestamp(milliseconds: Self.firstInit + 2 * Self.hour), amount: 12.5, currency: "EUR"),
            SKANEvent(name: schema.paymentEvent, receivedAt: Timestamp(milliseconds: Self.firstInit + 3 * Self.hour), amount: 9.5, currency: "USD"),
        ]
        let expected = SKANEvaluator.evaluate(
            schema: schema, isIOS: true, firstInit: Timestamp(milliseconds: Self.firstInit),
            now: Timestamp(milliseconds: Self.firstInit + 5 * Self.hour), events: events, state: [:])
        #expect(sqlite.first == expected.values && sqlite.first != nil)
        #expect(sqlite.changes == expected.state.count && sqlite.changes > 0 && sqlite.changesAgain == 0)
        #expect(sqlite.stored.count == expected.state.count)
    }
}

extension PGConnection {
    /// This connection with PostgreSQL's schema applied.
    func migrated() throws -> PGConnection {
        try PGMigrator.migrate(self)
        return self
    }
}
