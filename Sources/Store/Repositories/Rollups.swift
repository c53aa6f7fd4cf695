import Counting
import SQLValues
import StoreContracts

/// The rollups recounted from the rows by `Counting`'s rules, on either backend: compared with
/// what is stored (`check`), or written in its place (`rebuild`).
///
/// Clicks pruned by retention are gone from the rows but stay counted: click counts (and the
/// referring site of installs, read from their click) are kept as stored for the hours (and
/// days) retention reached (`clicks_pruned`), and recounted after them.
struct Rollups<Source: SessionSource>: RollupStore {
    let source: Source
    /// Brings the stored rollups up to date (PostgreSQL folds its pending deltas).
    let beforeRollupRead: @Sendable () throws -> Void

    func check(projectID: String?, sinceHour: Int64, limit: Int) throws -> (lines: [String], differing: Int) {
        try beforeRollupRead()
        return try source.read { connection in
            var lines: [String] = []
            var differing = 0
            for project in try RollupRecount.projects(projectID, connection) {
                let stored = try RollupRecount.stored(project: project, connection)
                let recount = try RollupRecount.recount(project: project, keeping: stored, connection)
                var differences = stored.since(hour: sinceHour).differences(from: recount.since(hour: sinceHour), limit: .max)
                let wrongFlags = try connection.queryOne(RollupFacts.wrongRevenueFlags, project) { $0.int(0) } ?? 0
                if wrongFlags > 0 {
                    differences.insert("installs of project \(project): \(wrongFlags) with has_revenue_event not as their events say", at: 0)
                }
                differing += differences.count
                lines += differences.prefix(max(0, limit - lines.count))
            }
            return (lines, differing)
        }
    }

    func rebuild(projectID: String?, sinceHour: Int64) throws -> Int {
        try beforeRollupRead()
        return try source.writeSession { connection in try RollupRecount.rebuild(projectID: projectID, sinceHour: sinceHour, connection) }
    }
}

/// The recount and the replacement, in the caller's transaction.
@_spi(StoreInternals) public enum RollupRecount {
    /// Replaces the rollups of the project (every project when nil) from the day of `sinceHour`
    /// on with a recount; the rows written.
    @discardableResult
    public static func rebuild(projectID: String? = nil, sinceHour: Int64 = Int64.min / 2, _ connection: some StoreSession) throws -> Int {
        let fromHour = sinceHour / 24 * 24
        var written = 0
        for project in try projects(projectID, connection) {
            // The flag the event path counts paying installs by, as the events say (read by the recount).
            written += try connection.run(RollupFacts.refreshProjectRevenueFlags, project)
            for statement in EventMarks.recomputeProject { try connection.run(statement, project) }
            let stored = try stored(project: project, connection)
            let recount = try recount(project: project, keeping: stored, connection).since(hour: fromHour)
            written += try replace(project: project, fromHour: fromHour, with: recount, connection)
        }
        return written
    }

    static func projects(_ projectID: String?, _ connection: some StoreSession) throws -> [String] {
        if let projectID { return [projectID] }
        return try connection.query("SELECT id FROM projects ORDER BY id") { $0.string(0) }
    }

    /// Hours after this one are in the link-hour tables alone until the writer folds them (SQLite,
    /// `rollup_folded`); PostgreSQL's fold, run first, adds up every hour.
    static func foldedThroughHour<C: StoreSession>(_ connection: C) throws -> Int64 {
        guard C.dialect == .sqlite else { return .max }
        return try connection.queryOne("SELECT through_hour FROM rollup_folded") { $0.int(0) } ?? .max
    }

    /// Installs are read this many at a time, with their events, payments and SKAN values.
    static var installsPerChunk: Int { 2000 }

    static func recount(project: String, keeping stored: RollupTables, _ connection: some StoreSession) throws -> RollupTables {
        var recount = RollupTables()
        let folded = try foldedThroughHour(connection)
        for (hour, linkID, isBot, platform, osVersion, country, referer, count) in try connection.query(
            """
            SELECT created_at / 3600000, link_id, is_bot, platform, os_version, country, referer, count(*) FROM clicks WHERE project_id = ?
            GROUP BY 1, 2, 3, 4, 5, 6, 7
            """, project,
            map: {
                (
                    $0.int(0), $0.optionalString(1), $0.bool(2), $0.optionalString(3), $0.optionalString(4), $0.optionalString(5),
                    $0.optionalString(6),
                    $0.int(7)
                )
            })
        {
            let click = ClickFact(
                projectID: project, at: hour * RollupTables.hourMilliseconds, linkID: linkID, isBot: isBot, platform: platform, osVersion: osVersion,
                country: country, referer: referer)
            recount.add(Counting.click(click).scaled(by: count), foldedThroughHour: folded)
        }
        var after = ""
        while true {
            // In primary-key order, every project's (a predicate on the project would have the
            // planner walk the project's installs by time and sort them, for every chunk), then
            // this project's kept; their rows found through the install id's indexes.
            let chunk = try connection.query(
                """
                SELECT i.id, \(RollupFacts.installColumns) FROM installs i LEFT JOIN clicks c ON c.click_id = i.click_id
                WHERE i.id > ? ORDER BY i.id LIMIT ?
                """, after, installsPerChunk,
                map: { ($0.string(0), RollupFacts.install($0, offset: 1, hasLivePayment: false, hasRevenueEvent: false)) })
            guard let first = chunk.first?.0, let last = chunk.last?.0 else { break }
            after = last
            let installs = chunk.filter { $0.1.projectID == project }
            guard !installs.isEmpty else { continue }
            var events: [String: [EventFact]] = [:]
            for (installID, event) in try connection.query(
                "SELECT e.install_id, \(RollupFacts.eventColumns) FROM events e WHERE e.install_id >= ? AND e.install_id <= ?",
                first, last, map: { ($0.string(0), RollupFacts.event($0, offset: 1)) })
            {
                events[installID, default: []].append(event)
            }
            var payments: [String: [PaymentFact]] = [:]
            for (installID, payment) in try connection.query(
                """
                SELECT p.install_id, \(RollupFacts.paymentColumns) FROM payments p
                WHERE p.install_id >= ? AND p.install_id <= ? AND p.removed_at IS NULL
                """, first, last, map: { ($0.string(0), RollupFacts.payment($0, offset: 1)) })
            {
                payments[installID, default: []].append(payment)
            }
            var skan: [String: [SKANFact]] = [:]
            for (installID, value) in try connection.query(
                """
                SELECT s.install_id, \(RollupFacts.skanColumns) FROM skan_state s
                WHERE s.install_id >= ? AND s.install_id <= ? AND (s.fine IS NOT NULL OR s.coarse IS NOT NULL)
                """, first, last, map: { ($0.string(0), SKANFact(window: Int($0.int(1)), value: $0.string(2))) })
            {
                skan[installID, default: []].append(value)
            }
            for (installID, install) in installs {
                let state = RollupFacts.completed(
                    InstallState(install: install, events: events[installID] ?? [], payments: payments[installID] ?? [], skan: skan[installID] ?? []))
                recount.add(Counting.contribution(of: state), foldedThroughHour: folded)
            }
        }
        let horizon = try clickHorizon(project: project, connection)
        return recount.keepingClickCounts(of: stored, before: horizon)
    }

    /// The first hour whose clicks are all stored: retention pruned the project's clicks before
    /// `clicks_pruned.pruned_before` (its own row, or '' for every project); none pruned, every hour.
    static func clickHorizon(project: String, _ connection: some StoreSession) throws -> Int64 {
        guard
            let before = try connection.queryOne(
                "SELECT max(pruned_before) FROM clicks_pruned WHERE project_id IN (?, '')", project, map: { $0.optionalInt(0) }),
            let before
        else { return Int64.min / 2 }
        return (before + RollupTables.hourMilliseconds - 1) / RollupTables.hourMilliseconds
    }

    static func stored<C: StoreSession>(project: String, _ connection: C) throws -> RollupTables {
        var tables = RollupTables()
        let columns = Counters.columns.joined(separator: ", ")
        func counters(_ row: C.Reader, from column: Int32) -> Counters {
            Counters(values: (0..<Int32(Counters.columns.count)).map { row.int(column + $0) })
        }
        for (key, value) in try connection.query(
            "SELECT hour, link_id, \(columns) FROM rollup_link_hours WHERE project_id = ?", project,
            map: { (RollupTables.LinkPeriod(projectID: project, period: $0.int(0), linkID: $0.string(1)), counters($0, from: 2)) })
        {
            tables.linkHours[key] = value
        }
        for (key, value) in try connection.query(
            "SELECT day, link_id, \(columns) FROM rollup_link_days WHERE project_id = ?", project,
            map: { (RollupTables.LinkPeriod(projectID: project, period: $0.int(0), linkID: $0.string(1)), counters($0, from: 2)) })
        {
            tables.linkDays[key] = value
        }
        for (key, value) in try connection.query(
            "SELECT hour, \(columns) FROM rollup_project_hours WHERE project_id = ?", project,
            map: { (RollupTables.ProjectHour(projectID: project, hour: $0.int(0)), counters($0, from: 1)) })
        {
            tables.projectHours[key] = value
        }
        for (key, value) in try connection.query(
            "SELECT scope, period, link_id, kind, currency, amount, entries FROM rollup_money WHERE project_id = ?", project,
            map: {
                (
                    RollupTables.MoneyKey(
                        projectID: project, scope: $0.string(0), period: $0.int(1), linkID: $0.string(2), kind: $0.string(3), currency: $0.string(4)),
                    RollupTables.Money(amount: $0.double(5), entries: $0.int(6))
                )
            })
        {
            tables.money[key] = value
        }
        for (key, value) in try connection.query(
            "SELECT hour, link_id, kind, currency, amount, entries FROM rollup_link_hour_money WHERE project_id = ?", project,
            map: {
                (
                    RollupTables.MoneyKey(
                        projectID: project, scope: "link_hour", period: $0.int(0), linkID: $0.string(1), kind: $0.string(2), currency: $0.string(3)),
                    RollupTables.Money(amount: $0.double(4), entries: $0.int(5))
                )
            })
        {
            tables.money[key] = value
        }
        for (key, value) in try connection.query(
            "SELECT dimension, hour, value, installs FROM rollup_tallies WHERE project_id = ?", project,
            map: { (RollupTables.TallyKey(projectID: project, dimension: $0.string(0), hour: $0.int(1), value: $0.string(2)), $0.int(3)) })
        {
            tables.tallies[key] = value
        }
        return tables
    }

    /// Deletes the project's rollup rows from `fromHour` (a day's first hour) on and inserts `tables`,
    /// in key order (the tables are keyed B-trees: rows in hash order scatter them over pages).
    static func replace(project: String, fromHour: Int64, with tables: RollupTables, _ connection: some StoreSession) throws -> Int {
        let fromDay = fromHour / 24
        try connection.run("DELETE FROM rollup_link_hours WHERE project_id = ? AND hour >= ?", project, fromHour)
        try connection.run("DELETE FROM rollup_link_days WHERE project_id = ? AND day >= ?", project, fromDay)
        try connection.run("DELETE FROM rollup_project_hours WHERE project_id = ? AND hour >= ?", project, fromHour)
        try connection.run("DELETE FROM rollup_money WHERE project_id = ? AND scope = 'day' AND period >= ?", project, fromDay)
        try connection.run("DELETE FROM rollup_money WHERE project_id = ? AND scope = 'hour' AND period >= ?", project, fromHour)
        try connection.run("DELETE FROM rollup_link_hour_money WHERE project_id = ? AND hour >= ?", project, fromHour)
        try connection.run("DELETE FROM rollup_tallies WHERE project_id = ? AND hour >= ?", project, fromHour)
        var written = 0
        let columns = Counters.columns.joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: Counters.columns.count).joined(separator: ", ")
        func values(_ counters: Counters) -> [SQLValue] { counters.values.map { .integer($0) } }
        for (key, counters) in tables.linkHours.sorted(by: { $0.key < $1.key }) where !counters.isZero {
            written += try connection.run(
                "INSERT INTO rollup_link_hours (project_id, hour, link_id, \(columns)) VALUES (?, ?, ?, \(placeholders))",
                values: [.text(project), .integer(key.period), .text(key.linkID)] + values(counters))
        }
        for (key, counters) in tables.linkDays.sorted(by: { $0.key < $1.key }) where !counters.isZero {
            written += try connection.run(
                "INSERT INTO rollup_link_days (project_id, day, link_id, \(columns)) VALUES (?, ?, ?, \(placeholders))",
                values: [.text(project), .integer(key.period), .text(key.linkID)] + values(counters))
        }
        for (key, counters) in tables.projectHours.sorted(by: { $0.key < $1.key }) where !counters.isZero {
            written += try connection.run(
                "INSERT INTO rollup_project_hours (project_id, hour, \(columns)) VALUES (?, ?, \(placeholders))",
                values: [.text(project), .integer(key.hour)] + values(counters))
        }
        for (key, money) in tables.money.sorted(by: { $0.key < $1.key }) where money.entries != 0 || money.amount != 0 {
            if key.scope == "link_hour" {
                written += try connection.run(
                    "INSERT INTO rollup_link_hour_money (project_id, hour, link_id, kind, currency, amount, entries) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    project, key.period, key.linkID, key.kind, key.currency, money.amount, money.entries)
            } else {
                written += try connection.run(
                    "INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    project, key.scope, key.period, key.linkID, key.kind, key.currency, money.amount, money.entries)
            }
        }
        for (key, count) in tables.tallies.sorted(by: { $0.key < $1.key }) where count != 0 {
            written += try connection.run(
                "INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs) VALUES (?, ?, ?, ?, ?)",
                project, key.dimension, key.hour, key.value, count)
        }
        return written
    }
}
