import Attribution
import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
import StoreContracts
import TestSupport
import Testing

@_spi(StoreInternals) @testable import Store

/// The rollups (migration 0015) as `Counting` recounts them (`RollupRecount`, `attributiond rollups
/// rebuild`) against the stats' own reading of the rows: after every kind of row — clicks (bots,
/// unlinked), installs of every match type, Apple Ads re-attribution, events with and without
/// revenue, payments and their removal, a deleted link, an erased install, a user's events erased,
/// written here by hand in SQL — `stats` from rollups and `statsFromRows` agree on any range, with
/// hours folded or not. (The real write paths count as they write: `RollupEqualityTests`.)
@Suite struct RollupTests {
    static let day: Int64 = 86_400_000
    static let start: Int64 = 1_760_000_000_000  // 2025-10-09

    /// Writes a project's worth of rows over 12 days, with every later change the store makes.
    /// On either backend: the statements are written in the SQL both speak, and rows are picked
    /// for the later changes by the number in their id rather than SQLite's rowid.
    static func populate(_ connection: some StoreSession, seed: UInt64, mutate: Bool = true, recount: Bool = true) throws {
        var random = SeededGenerator(seed: seed)
        try connection.run(
            "INSERT INTO projects (id, name, token_hash, created_at, updated_at) VALUES ('p', 'Shop', ?, 0, 0), ('q', 'Other', ?, 0, 0)",
            [UInt8(1)], [UInt8(2)])
        try connection.run(
            """
            INSERT INTO links (id, project_id, short_code, created_at, updated_at) VALUES
                ('l1', 'p', 'one', 0, 0), ('l2', 'p', 'two', 0, 0), ('l3', 'p', 'three', 0, 0), ('lq', 'q', 'other', 0, 0)
            """)
        let links = ["l1", "l2", "l3", nil]
        func time() -> Int64 { start + Int64.random(in: 0..<(12 * day), using: &random) }
        for index in 0..<600 {
            let link = links.randomElement(using: &random)!
            try connection.run(
                "INSERT INTO clicks (click_id, project_id, link_id, created_at, is_bot) VALUES (?, 'p', ?, ?, ?)",
                "c\(index)", link, time(), Int.random(in: 0..<8, using: &random) == 0)
        }
        try connection.run("INSERT INTO clicks (click_id, project_id, link_id, created_at) VALUES ('cq', 'q', 'lq', ?)", start + day)
        let matchTypes = ["deterministic", "probabilistic", "none"]
        for index in 0..<200 {
            let matchType = matchTypes.randomElement(using: &random)!
            let attributed = matchType != "none"
            let link = attributed ? links.randomElement(using: &random)! : nil
            try connection.run(
                """
                INSERT INTO installs (id, project_id, api, created_at, last_seen_at, match_type, attributed, matched_factors, link_id, user_id, confidence)
                VALUES (?, 'p', 'linkrunner', ?, 0, ?, ?, ?, ?, ?, ?)
                """, "i\(index)", time(), matchType, attributed, attributed ? #"["ip"]"# : "[]", link, index % 4 == 0 ? "u\(index)" : nil,
                attributed ? [1.0, 0.85, 0.65, 0.40, 0.25].randomElement(using: &random)! : 0)
            for window in 1...3 where Int.random(in: 0..<3, using: &random) == 0 {
                let fine: Int? = window == 1 || Bool.random(using: &random) ? Int.random(in: 0...63, using: &random) : nil
                try connection.run(
                    #"INSERT INTO skan_state (install_id, "window", fine, coarse, updated_at) VALUES (?, ?, ?, ?, 0)"#,
                    "i\(index)", window, fine, fine == nil ? ["low", "medium", "high"].randomElement(using: &random)! : nil)
            }
        }
        for index in 0..<500 {
            let install = "i\(Int.random(in: 0..<200, using: &random))"
            let revenue: Double? = Bool.random(using: &random) ? Double(Int.random(in: 1...5000, using: &random)) / 100 : nil
            let currency: String? = [nil, "USD", "EUR"].randomElement(using: &random)!
            try connection.run(
                """
                INSERT INTO events (id, project_id, install_id, name, occurred_at, received_at, revenue, currency, user_id)
                VALUES (?, 'p', ?, 'purchase', 0, ?, ?, ?, ?)
                """, "e\(index)", install, time(), revenue, currency, index % 3 == 0 ? "u1" : nil)
        }
        for index in 0..<150 {
            let install = "i\(Int.random(in: 0..<200, using: &random))"
            try connection.run(
                """
                INSERT INTO payments (id, project_id, install_id, payment_id, user_id, amount, currency, created_at)
                VALUES (?, 'p', ?, ?, 'u2', ?, ?, ?)
                """, "pay\(index)", install, "pid\(index)", Double(Int.random(in: 0...9999, using: &random)) / 100,
                ["USD", "EUR", "GBP"].randomElement(using: &random)!, time())
        }
        if mutate { try Self.mutate(connection, recount: recount) }
        if recount { try RollupRecount.rebuild(connection) }
    }

    /// Every later change the store makes to `populate`'s rows.
    static func mutate(_ connection: some StoreSession, recount: Bool = true) throws {
        for statement in mutations { try connection.run(statement) }
        if recount { try RollupRecount.rebuild(connection) }
    }

    static var mutations: [String] {
        let install = "CAST(substr(id, 2) AS INTEGER)"
        let payment = "CAST(substr(id, 4) AS INTEGER)"
        return [
            "UPDATE payments SET removed_at = 1 WHERE \(payment) % 7 = 0",
            "UPDATE installs SET user_id = 'late' WHERE \(install) % 5 = 1 AND user_id IS NULL",
            "UPDATE installs SET user_id = NULL WHERE \(install) % 9 = 0",
            """
            UPDATE installs SET match_type = 'deterministic', attributed = TRUE, matched_factors = '["apple_ads"]', link_id = NULL
                WHERE \(install) % 11 = 0
            """,
            """
            UPDATE installs SET attributed = TRUE, match_type = 'probabilistic', link_id = 'l2', confidence = 0.65
                WHERE \(install) % 13 = 1 AND attributed = FALSE
            """,
            "UPDATE installs SET confidence = 0.9 WHERE \(install) % 6 = 2 AND attributed = TRUE",
            #"UPDATE skan_state SET fine = (coalesce(fine, 0) + 5) % 64, coarse = NULL WHERE (CAST(substr(install_id, 2) AS INTEGER) + "window") % 4 = 0"#,
            #"DELETE FROM skan_state WHERE (CAST(substr(install_id, 2) AS INTEGER) + "window") % 7 = 3"#,
            "DELETE FROM links WHERE id = 'l3'",
            "DELETE FROM installs WHERE \(install) % 17 = 0",
            "DELETE FROM events WHERE user_id = 'u1' AND CAST(substr(id, 2) AS INTEGER) % 2 = 0",
            "DELETE FROM payments WHERE \(payment) % 19 = 0",
        ]
    }

    static func expectSame(_ rollups: ProjectStats, _ rows: ProjectStats, _ note: String) {
        func same(_ a: ProjectStats.Counts, _ b: ProjectStats.Counts) -> Bool {
            var a2 = a
            var b2 = b
            a2.paymentRevenue = [:]
            a2.eventRevenue = [:]
            b2.paymentRevenue = [:]
            b2.eventRevenue = [:]
            func money(_ x: [String: Double], _ y: [String: Double]) -> Bool {
                Set(x.keys) == Set(y.keys) && x.allSatisfy { abs($0.value - y[$0.key]!) < 1e-6 }
            }
            return a2 == b2 && money(a.paymentRevenue, b.paymentRevenue) && money(a.eventRevenue, b.eventRevenue)
        }
        #expect(same(rollups.totals, rows.totals), "totals \(note): \(rollups.totals) vs \(rows.totals)")
        #expect(rollups.links.map(\.linkID) == rows.links.map(\.linkID), "links \(note)")
        #expect(rollups.installsByConfidence == rows.installsByConfidence, "confidence bands \(note)")
        #expect(rollups.skanValues == rows.skanValues, "SKAN values \(note)")
        for (a, b) in zip(rollups.links, rows.links) {
            #expect(same(a.counts, b.counts), "link \(a.shortCode) \(note): \(a.counts) vs \(b.counts)")
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func rollupsAgreeWithTheRowsOnAnyRange(seed: UInt64) throws {
        let temp = try TemporaryDatabase()
        try temp.database.writeAndWait { try Self.populate($0, seed: seed) }
        try Self.expectAgreement(Stats(source: temp.database), seed: seed)
    }

    /// PostgreSQL's: the same rows, the same agreement.
    @Test(arguments: [1, 2] as [UInt64])
    func postgreSQLsRollupsAgreeWithTheRowsOnAnyRange(seed: UInt64) throws {
        let pool = PGPool(url: try PostgresCluster.shared().newDatabase(), size: 2, errors: .store)
        _ = try pool.session { try PGMigrator.migrate($0) }
        try pool.transaction { try Self.populate($0, seed: seed) }
        try Self.expectAgreement(
            Stats(source: PGSource(pool: pool, writer: PGWriter(pool: pool)), beforeRollupRead: { try pool.foldRollups() }),
            seed: seed)
    }

    static func expectAgreement<Source: SessionSource>(_ stats: Stats<Source>, seed: UInt64, mutated: Bool = true, phase: String = "") throws {
        var random = SeededGenerator(seed: seed &* 31)
        var ranges: [(Int64, Int64)] = [(0, Self.start + 30 * Self.day), (Self.start, Self.start + 12 * Self.day)]
        for _ in 0..<25 {
            let a = Self.start - Self.day + Int64.random(in: 0..<(14 * Self.day), using: &random)
            ranges.append((a, a + Int64.random(in: 1..<(10 * Self.day), using: &random)))
        }
        // Whole hours that are not whole days (the last 24 hours; days in a time zone): days from
        // the day rollups, the hours at either end from the hour rollups.
        let hour: Int64 = 3_600_000
        for _ in 0..<15 {
            let a = (Self.start - Self.day) / hour * hour + Int64.random(in: 0..<(14 * 24), using: &random) * hour
            ranges.append((a, a + Int64.random(in: 1..<(5 * 24), using: &random) * hour))
        }
        for (from, to) in ranges {
            let since = Timestamp(milliseconds: from)
            let until = Timestamp(milliseconds: to)
            Self.expectSame(
                try stats.stats(projectID: "p", since: since, until: until, currency: "JPY"),
                try stats.statsFromRows(projectID: "p", since: since, until: until, currency: "JPY"), "\(phase) [\(from), \(to))")
        }
        // Two adjacent periods added up are the period they make (the dashboard's closed days + today).
        let (a, b, c) = (Self.start - Self.day, Self.start + 5 * Self.day + 7, Self.start + 13 * Self.day)
        Self.expectSame(
            try stats.stats(projectID: "p", since: Timestamp(milliseconds: a), until: Timestamp(milliseconds: b), currency: "JPY")
                .adding(try stats.stats(projectID: "p", since: Timestamp(milliseconds: b), until: Timestamp(milliseconds: c), currency: "JPY")),
            try stats.statsFromRows(projectID: "p", since: Timestamp(milliseconds: a), until: Timestamp(milliseconds: c), currency: "JPY"),
            "added periods")
        let everything = try stats.stats(
            projectID: "p", since: Timestamp(milliseconds: 0), until: Timestamp(milliseconds: start + 30 * day), currency: "JPY")
        #expect(everything.totals.clicks + everything.totals.botClicks == 600)
        #expect(everything.totals.appleAdsInstalls > 0 || !mutated)
        #expect(everything.totals.eventRevenue["JPY"] != nil)
        #expect(everything.totals.signups > 0 && everything.totals.payingInstalls > 0)  // events without a currency count in the project's
    }

    /// Events stored through EventRepository are counted by it, not by the trigger (migration
    /// 0021): once each — repeats by client id or content are not counted — under the install's
    /// link, with their revenue; and what happens to them later moves them as the trigger's would.
    @Test func eventsRecordedByTheRepositoryAreCountedOnce() throws {
        let temp = try TemporaryDatabase()
        try temp.database.writeAndWait { try Self.populate($0, seed: 5, mutate: false) }
        try temp.database.writeAndWait { try $0.execute("UPDATE installs SET install_instance_id = 'instance-' || id") }
        let events = Events(source: temp.database)
        var random = SeededGenerator(seed: 55)
        var stored = 0
        for index in 0..<300 {
            let install = Int.random(in: 0..<200, using: &random)
            let revenue: Double? = Bool.random(using: &random) ? Double(Int.random(in: 1...5000, using: &random)) / 100 : nil
            let at = Timestamp(milliseconds: Self.start + Int64.random(in: 0..<(12 * Self.day), using: &random))
            let record = EventRecord(
                projectID: "p", install: index % 2 == 0 ? .id("i\(install)") : .instance("instance-i\(install)"),
                name: "purchase", clientEventID: index % 5 == 0 ? "client-\(index / 10)" : nil,
                contentKey: index % 7 == 0 ? "content-\(index / 14)" : nil, data: nil, revenue: revenue,
                currency: [nil, "USD", "EUR"].randomElement(using: &random)!,
                occurredAt: Timestamp(milliseconds: Self.start), receivedAt: at)
            let done = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var outcome: Result<(eventID: String, duplicate: Bool, skan: SKANValues?), any Error>?
            events.record(record, eventID: "repo-event-\(index)") {
                outcome = $0
                done.signal()
            }
            done.wait()
            if try !outcome!.get().duplicate { stored += 1 }
        }
        #expect(stored < 300 && stored > 250)  // some were repeats
        let stats = Stats(source: temp.database)
        let since = Timestamp(milliseconds: 0)
        let until = Timestamp(milliseconds: Self.start + 30 * Self.day)
        Self.expectSame(
            try stats.stats(projectID: "p", since: since, until: until, currency: "JPY"),
            try stats.statsFromRows(projectID: "p", since: since, until: until, currency: "JPY"), "after the repository's events")
        #expect(try stats.stats(projectID: "p", since: since, until: until, currency: "JPY").totals.events == 500 + stored)
        try temp.database.writeAndWait { connection in
            try connection.execute(
                """
                UPDATE installs SET attributed = 1, match_type = 'probabilistic', link_id = 'l2', confidence = 0.65 WHERE rowid % 3 = 1 AND attributed = 0;
                DELETE FROM installs WHERE rowid % 17 = 0;
                DELETE FROM events WHERE id LIKE 'repo-event-%' AND rowid % 4 = 0;
                """)
            try RollupRecount.rebuild(connection)
        }
        Self.expectSame(
            try stats.stats(projectID: "p", since: since, until: until, currency: "JPY"),
            try stats.statsFromRows(projectID: "p", since: since, until: until, currency: "JPY"), "after later changes")
    }

    @Test func theHourlySeriesAddsUpToTheRowsOfEachBucket() throws {
        let temp = try TemporaryDatabase()
        try temp.database.writeAndWait { try Self.populate($0, seed: 7) }
        let stats = Stats(source: temp.database)
        let midnight = Self.start - Self.start % Self.day
        let since = Timestamp(milliseconds: midnight)
        let until = Timestamp(milliseconds: midnight + 13 * Self.day)
        let boundaries = (0...13).map { since.adding(seconds: Int64($0) * 86_400) }
        #expect(boundaries.last == until)
        let buckets = try stats.series(projectID: "p", boundaries: boundaries, currency: "USD")
        #expect(buckets.count == 13)
        for bucket in buckets {
            var rows = try stats.statsFromRows(projectID: "p", since: bucket.start, until: bucket.start.adding(seconds: 86_400), currency: "USD")
            rows.links = []
            rows.installsByConfidence = [:]
            rows.skanValues = [:]
            Self.expectSame(ProjectStats(totals: bucket.counts, links: []), rows, "bucket \(bucket.start.iso8601)")
        }
    }

    /// Hours the writer has not folded into the day and project-hour rollups yet (migration
    /// 0022) are read from the link hours: the counts agree with the rows before any fold, with
    /// some hours folded, after later changes on both sides of the fold, and once everything is
    /// folded; and the folded tables then hold what a database that never left an hour unfolded
    /// holds.
    @Test(arguments: [1, 2] as [UInt64])
    func hoursNotFoldedYetCountOnceBeforeAndAfterTheFold(seed: UInt64) throws {
        let hour: Int64 = 3_600_000
        let temp = try TemporaryDatabase(foldedThroughHour: Self.start / hour - 48)
        let database = temp.database
        try database.writeAndWait { try Self.populate($0, seed: seed, mutate: false) }
        func total(_ sql: String) throws -> Int64 { try database.read { try $0.queryOne(sql) { $0.int(0) } ?? -1 } }
        #expect(try total("SELECT count(*) FROM rollup_link_days") == 0)
        #expect(try total("SELECT count(*) FROM rollup_project_hours") == 0)
        #expect(try total("SELECT count(*) FROM rollup_money") == 0)
        #expect(try total("SELECT sum(clicks + bot_clicks) FROM rollup_link_hours WHERE project_id = 'p'") == 600)
        let stats = Stats(source: database)
        try Self.expectAgreement(stats, seed: seed, mutated: false, phase: "before any fold")

        let middle = (Self.start + 5 * Self.day) / hour + 7
        try database.writer.foldRollups(through: middle)
        #expect(try total("SELECT through_hour FROM rollup_folded") == middle)
        #expect(try total("SELECT max(hour) FROM rollup_project_hours") <= middle)
        #expect(try total("SELECT count(*) FROM rollup_project_hours") > 0)
        try Self.expectAgreement(stats, seed: seed, mutated: false, phase: "folded to the middle")
        try database.writeAndWait { try Self.mutate($0) }
        try Self.expectAgreement(stats, seed: seed, mutated: true, phase: "after later changes")
        try Self.expectSeriesAgreement(stats)

        // The writer folds the hours that are over at the start of its next batch.
        database.writer.foldsClosedHours = true
        let closedHour = Int64(Date().timeIntervalSince1970) / 3_600 - 1
        try database.writeAndWait { _ in }
        #expect((closedHour...closedHour + 1).contains(try total("SELECT through_hour FROM rollup_folded")))  // an hour may end meanwhile
        try Self.expectAgreement(stats, seed: seed, mutated: true, phase: "every closed hour folded")
        try Self.expectSeriesAgreement(stats)

        // The same writes with every hour folded as it is written.
        let reference = try TemporaryDatabase()
        try reference.database.writeAndWait { try Self.populate($0, seed: seed, mutate: false) }
        try reference.database.writeAndWait { try Self.mutate($0) }
        // Rows whose counts add up to nothing may be left on one side (a fact and its removal).
        for (table, columns, counted) in [
            (
                "rollup_link_days", 14,
                "clicks <> 0 OR bot_clicks <> 0 OR installs <> 0 OR events <> 0 OR signups <> 0 OR paying_installs <> 0 OR organic_installs <> 0 OR attributed_installs <> 0"
            ),
            (
                "rollup_project_hours", 13,
                "clicks <> 0 OR bot_clicks <> 0 OR installs <> 0 OR events <> 0 OR signups <> 0 OR paying_installs <> 0 OR organic_installs <> 0 OR attributed_installs <> 0"
            ),
            ("rollup_money", 8, "entries <> 0"),
        ] {
            func rows(_ database: Database) throws -> [String] {
                try database.read { connection in
                    try connection.query("SELECT * FROM \(table) WHERE \(counted)") { row in
                        (0..<Int32(columns)).map { column in
                            // Sums of money in another order may differ in the last bits.
                            table == "rollup_money" && column == 6 ? String(format: "%.6f", row.double(column)) : row.optionalString(column) ?? ""
                        }.joined(separator: "|")
                    }
                }
            }
            #expect(try rows(database).sorted() == rows(reference.database).sorted(), "\(table)")
        }
    }

    /// The daily series over the populated days, bucket by bucket, against the rows.
    static func expectSeriesAgreement<Source: SessionSource>(_ stats: Stats<Source>) throws {
        let midnight = Self.start - Self.start % Self.day
        let boundaries = (0...13).map { Timestamp(milliseconds: midnight).adding(seconds: Int64($0) * 86_400) }
        for bucket in try stats.series(projectID: "p", boundaries: boundaries, currency: "USD") {
            var rows = try stats.statsFromRows(projectID: "p", since: bucket.start, until: bucket.start.adding(seconds: 86_400), currency: "USD")
            rows.links = []
            rows.installsByConfidence = [:]
            rows.skanValues = [:]
            Self.expectSame(ProjectStats(totals: bucket.counts, links: []), rows, "bucket \(bucket.start.iso8601)")
        }
    }

    /// Each later change in a transaction of its own, as the admin API and the SDKs make them:
    /// a link deleted after its installs were counted keeps them counted, under no link
    /// (migration 0023; its rows were taken away twice before).
    @Test func laterChangesOneTransactionEachAgreeWithTheRows() throws {
        let temp = try TemporaryDatabase()
        try temp.database.writeAndWait { try Self.populate($0, seed: 4, mutate: false) }
        let stats = Stats(source: temp.database)
        for (index, statement) in Self.mutations.enumerated() {
            try temp.database.writeAndWait {
                _ = try $0.run(statement)
                try RollupRecount.rebuild($0)
            }
            try Self.expectAgreement(stats, seed: 4, mutated: index >= 3, phase: "after \(statement)")
        }
    }

    /// The migration counts what a database already holds when it is applied.
    @Test func theMigrationBuildsRollupsFromExistingRows() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-0015-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        _ = try Database(path: path, migrations: Migration.bundled.filter { $0.name < "0015" })
        let early = try SQLiteConnection(path: path, mode: .readWrite)
        try early.execute("PRAGMA foreign_keys = ON")
        try Self.populate(early, seed: 11, recount: false)
        let database = try Database(path: path)
        let stats = Stats(source: database)
        let hour: Int64 = 3_600_000
        let startHour = Self.start / hour * hour
        for (from, to) in [
            (Int64(0), Self.start + 20 * Self.day), (Self.start + Self.day / 2, Self.start + 9 * Self.day + 5),
            (startHour + 3 * hour, startHour + 2 * Self.day + 5 * hour),
        ] {
            let since = Timestamp(milliseconds: from)
            let until = Timestamp(milliseconds: to)
            Self.expectSame(
                try stats.stats(projectID: "p", since: since, until: until, currency: "USD"),
                try stats.statsFromRows(projectID: "p", since: since, until: until, currency: "USD"), "[\(from), \(to))")
        }
        #expect(try database.read { try $0.queryOne("SELECT sum(clicks) FROM rollup_link_days WHERE project_id = 'q'") { $0.int(0) } } == 1)
    }

    /// A write that fails is rolled back with its deltas; the rest of its batch is counted.
    @Test func aFailedWriteLeavesNoDelta() throws {
        let temp = try TemporaryDatabase()
        try temp.database.writeAndWait { try Self.populate($0, seed: 3, mutate: false) }
        struct Refused: Error {}
        func click(_ id: String) -> Click {
            Click(clickID: id, projectID: "p", linkID: "l1", source: .link, createdAt: Timestamp(milliseconds: Self.start))
        }
        let kept = DispatchSemaphore(value: 0)
        let refused = DispatchSemaphore(value: 0)
        // One batch: the refused write's click goes with it, the other's is counted.
        temp.database.write(priority: .acknowledged, { try ClickRepository.insert(click("kept"), $0) }, completion: { _ in kept.signal() })
        temp.database.write(
            priority: .acknowledged,
            { connection in
                try ClickRepository.insert(click("late"), connection)
                throw Refused()
            }, completion: { _ in refused.signal() })
        kept.wait()
        refused.wait()
        func total(_ sql: String) throws -> Int64 { try temp.database.read { try $0.queryOne(sql) { $0.int(0) } ?? -1 } }
        #expect(try total("SELECT count(*) FROM clicks WHERE click_id = 'late'") == 0)
        #expect(try total("SELECT sum(clicks + bot_clicks) FROM rollup_link_days WHERE project_id = 'p'") == 601)
        #expect(try total("SELECT sum(clicks + bot_clicks) FROM rollup_project_hours WHERE project_id = 'p'") == 601)
    }

    /// A connection that is not the writer's (a tool's) counts what it writes through the store's
    /// code at once.
    @Test func aToolsConnectionCountsItsWritesAtOnce() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-tool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("db.sqlite").path
        do {
            let database = try Database(path: path)
            try database.writeAndWait { try Self.populate($0, seed: 9, mutate: false) }
        }
        let tool = try SQLiteConnection(path: path, mode: .readWrite)
        try tool.execute("PRAGMA foreign_keys = ON")
        try ClickRepository.insert(
            Click(clickID: "tool", projectID: "p", linkID: "l1", source: .link, createdAt: Timestamp(milliseconds: Self.start)), tool)
        #expect(try tool.queryOne("SELECT sum(clicks + bot_clicks) FROM rollup_link_days WHERE project_id = 'p'") { $0.int(0) } == 601)
        let database = try Database(path: path)
        let stats = Stats(source: database)
        let range = (Timestamp(milliseconds: 0), Timestamp(milliseconds: Self.start + 20 * Self.day))
        Self.expectSame(
            try stats.stats(projectID: "p", since: range.0, until: range.1, currency: "USD"),
            try stats.statsFromRows(projectID: "p", since: range.0, until: range.1, currency: "USD"), "after the tool's click")
    }

    /// Retention prunes clicks that matching no longer needs; the counts stay.
    @Test func clicksPrunedByRetentionStayCounted() throws {
        let temp = try TemporaryDatabase()
        try temp.database.writeAndWait { try Self.populate($0, seed: 5, mutate: false) }
        let stats = Stats(source: temp.database)
        let range = (Timestamp(milliseconds: Self.start - Self.start % Self.day), Timestamp(milliseconds: Self.start + 13 * Self.day))
        let before = try stats.stats(projectID: "p", since: range.0, until: range.1, currency: "USD").totals
        try temp.database.writeAndWait { _ = try $0.run("DELETE FROM clicks WHERE project_id = 'p'") }
        let after = try stats.stats(projectID: "p", since: range.0, until: range.1, currency: "USD").totals
        #expect(after.clicks == before.clicks && before.clicks > 0)
        #expect(try stats.statsFromRows(projectID: "p", since: range.0, until: range.1, currency: "USD").totals.clicks == 0)
    }
}
