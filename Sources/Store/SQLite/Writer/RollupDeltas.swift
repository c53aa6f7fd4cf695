import Attribution
import StoreContracts

/// The rollup deltas of one write batch (migration 0015): the triggers hand each fact's signed
/// counts to the writer connection's `rollup_count` / `rollup_money` functions, which keep them
/// here; before the COMMIT the writer adds them up by key and upserts each key once. A write
/// rolled back to its savepoint drops its own deltas (`mark` / `rollBack(to:)`).
///
/// Measured alternatives (docs/performance.md, "Dashboard and rollups"): one upsert per fact,
/// straight from the triggers, cost the click path 7%, capture-event 9% and init 5%; deltas
/// appended to a pending table and added up by SQL before each COMMIT cost clicks 2% but
/// capture-event 14% and init 16% (six statements per commit, and acknowledged writes commit in
/// small batches). Kept in memory, a batch costs one upsert per distinct key.
final class RollupCollector {
    static let counterCount = 11

    struct CountDelta {
        var projectID: String
        var at: Int64
        var linkID: String
        var inHours: Bool
        var counts: [Int64]
    }

    struct MoneyDelta {
        var projectID: String
        var at: Int64
        var linkID: String
        var inHours: Bool
        var kind: String
        var currency: String
        var amount: Double
        var entries: Int64
    }

    /// An install counted by one more property (migration 0018): its confidence band, a SKAN value.
    struct TallyDelta {
        var projectID: String
        var at: Int64
        var dimension: String
        var value: String
        var installs: Int64
    }

    /// A human click, counted by its platform, system, country and referring site (migration 0039),
    /// grouped here at the flush rather than by its trigger's SQL: one function call a click.
    struct ClickTally {
        var projectID: String
        var at: Int64
        var platform: String?
        var osVersion: String?
        var country: String?
        var referer: String?
    }

    private(set) var counts: [CountDelta] = []
    private(set) var money: [MoneyDelta] = []
    private(set) var tallies: [TallyDelta] = []
    private(set) var clickTallies: [ClickTally] = []

    var isEmpty: Bool { counts.isEmpty && money.isEmpty && tallies.isEmpty && clickTallies.isEmpty }

    /// An event of a counted install, with what its trigger read of the install's other events
    /// (migration 0039): the earliest other one of its name, and whether it is the first on its
    /// day N. `EventTallies` turns it into the tallies the trigger's SQL would write.
    func add(_ event: EventTallies.Event) {
        for delta in EventTallies.deltas(event) {
            tallies.append(
                TallyDelta(projectID: event.projectID, at: delta.at, dimension: delta.dimension, value: delta.value, installs: delta.count))
        }
    }

    /// Hours up to this one are in every rollup table; later hours only in the per-link hour
    /// tables until `fold(through:)` adds them to the others (migration 0022). Loaded by the writer
    /// at start from `rollup_folded`, and moved only with it.
    var foldedThroughHour: Int64 = .max

    /// True while a repository inserts rows it counts itself: the triggers that would count them
    /// again ask `rollup_counted_by_caller()` (migration 0021).
    var countedByCaller = false

    /// One stored event, counted by the repository that inserted it (which read its install's
    /// link anyway), as `rollup_event_insert` would count it: an event in its project's hour and
    /// link, its revenue as money of kind 'event'.
    func addEvent(projectID: String, at: Int64, linkID: String, revenue: Double?, currency: String?) {
        var counts = [Int64](repeating: 0, count: Self.counterCount)
        counts[Self.eventsIndex] = 1
        add(CountDelta(projectID: projectID, at: at, linkID: linkID, inHours: true, counts: counts))
        if let revenue {
            add(
                MoneyDelta(
                    projectID: projectID, at: at, linkID: linkID, inHours: true, kind: "event", currency: currency ?? "",
                    amount: revenue, entries: 1))
        }
    }

    /// `events` among the counters (the column order of `counterColumns`).
    private static let eventsIndex = 8

    func add(_ delta: CountDelta) { counts.append(delta) }
    func add(_ delta: MoneyDelta) { money.append(delta) }
    func add(_ delta: TallyDelta) { tallies.append(delta) }
    func add(_ click: ClickTally) { clickTallies.append(click) }

    struct Mark { let counts: Int, money: Int, tallies: Int, clickTallies: Int }

    /// Where the next write's deltas start.
    var mark: Mark { Mark(counts: counts.count, money: money.count, tallies: tallies.count, clickTallies: clickTallies.count) }

    func rollBack(to mark: Mark) {
        counts.removeSubrange(mark.counts...)
        money.removeSubrange(mark.money...)
        tallies.removeSubrange(mark.tallies...)
        clickTallies.removeSubrange(mark.clickTallies...)
    }

    func clear() {
        counts.removeAll(keepingCapacity: true)
        money.removeAll(keepingCapacity: true)
        tallies.removeAll(keepingCapacity: true)
        clickTallies.removeAll(keepingCapacity: true)
    }

    private static func add(_ delta: MoneyDelta, to sum: inout (amount: Double, entries: Int64)) {
        sum.amount += delta.amount
        sum.entries += delta.entries
    }

    /// A link's day or hour (`period` in days or hours since the epoch; link '' is "no link").
    private struct LinkPeriodKey: Hashable {
        let projectID: String
        let period: Int64
        let linkID: String
    }
    private struct HourKey: Hashable {
        let projectID: String
        let hour: Int64
    }
    /// scope: 'day' and 'hour' in rollup_money, 'link_hour' in rollup_link_hour_money.
    private struct MoneyKey: Hashable {
        let projectID: String, scope: String, period: Int64, linkID: String, kind: String, currency: String
    }
    private struct TallyKey: Hashable {
        let projectID: String
        let dimension: String
        let hour: Int64
        let value: String
    }

    /// Adds the collected deltas into the rollups on `connection` (inside the batch's transaction).
    func flush(_ connection: SQLiteConnection) throws {
        var days: [LinkPeriodKey: [Int64]] = [:]
        var linkHours: [LinkPeriodKey: [Int64]] = [:]
        var hours: [HourKey: [Int64]] = [:]
        func add(_ delta: CountDelta, to total: inout [Int64]?) {
            var sums = total ?? [Int64](repeating: 0, count: Self.counterCount)
            for index in 0..<Self.counterCount { sums[index] += delta.counts[index] }
            total = sums
        }
        // An hour not folded yet goes to the link's hour alone; the fold adds it to the rest.
        for delta in counts {
            let hour = delta.at / 3_600_000
            add(delta, to: &linkHours[LinkPeriodKey(projectID: delta.projectID, period: hour, linkID: delta.linkID)])
            guard hour <= foldedThroughHour else { continue }
            add(delta, to: &days[LinkPeriodKey(projectID: delta.projectID, period: delta.at / 86_400_000, linkID: delta.linkID)])
            if delta.inHours { add(delta, to: &hours[HourKey(projectID: delta.projectID, hour: hour)]) }
        }
        var sums: [MoneyKey: (amount: Double, entries: Int64)] = [:]
        for delta in money {
            let hour = delta.at / 3_600_000
            Self.add(
                delta,
                to: &sums[
                    MoneyKey(
                        projectID: delta.projectID, scope: "link_hour", period: hour, linkID: delta.linkID,
                        kind: delta.kind, currency: delta.currency), default: (0, 0)])
            guard hour <= foldedThroughHour else { continue }
            Self.add(
                delta,
                to: &sums[
                    MoneyKey(
                        projectID: delta.projectID, scope: "day", period: delta.at / 86_400_000, linkID: delta.linkID,
                        kind: delta.kind, currency: delta.currency), default: (0, 0)])
            if delta.inHours {
                Self.add(
                    delta,
                    to: &sums[
                        MoneyKey(
                            projectID: delta.projectID, scope: "hour", period: hour, linkID: "",
                            kind: delta.kind, currency: delta.currency), default: (0, 0)])
            }
        }
        var tallySums: [TallyKey: Int64] = [:]
        for delta in tallies {
            tallySums[TallyKey(projectID: delta.projectID, dimension: delta.dimension, hour: delta.at / 3_600_000, value: delta.value), default: 0] +=
                delta.installs
        }
        for click in clickTallies {
            let hour = click.at / 3_600_000
            for (dimension, value) in [
                ("click_platform", click.platform ?? ""),
                ("click_os", OperatingSystemGroup.of(platform: click.platform, version: click.osVersion)),
                ("click_country", click.country ?? ""), ("click_referrer", ReferrerHost.of(click.referer)),
            ] {
                tallySums[TallyKey(projectID: click.projectID, dimension: dimension, hour: hour, value: value), default: 0] += 1
            }
        }
        let statements = try prepared(connection)
        for (key, c) in days where c.contains(where: { $0 != 0 }) {
            try statements.day.run(key.projectID, key.period, key.linkID, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10])
        }
        for (key, c) in linkHours where c.contains(where: { $0 != 0 }) {
            try statements.linkHour.run(key.projectID, key.period, key.linkID, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10])
        }
        for (key, c) in hours where c.contains(where: { $0 != 0 }) {
            try statements.hour.run(key.projectID, key.hour, c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10])
        }
        for (key, sum) in sums where sum.entries != 0 || sum.amount != 0 {
            if key.scope == "link_hour" {
                try statements.linkHourMoney.run(key.projectID, key.period, key.linkID, key.kind, key.currency, sum.amount, sum.entries)
            } else {
                try statements.money.run(key.projectID, key.scope, key.period, key.linkID, key.kind, key.currency, sum.amount, sum.entries)
            }
        }
        for (key, installs) in tallySums where installs != 0 {
            try statements.tally.run(key.projectID, key.dimension, key.hour, key.value, installs)
        }
    }

    /// Adds the per-link hours after `foldedThroughHour`, up to `hour`, into the day,
    /// project-hour and money rollups, and moves `rollup_folded` and `foldedThroughHour` with them,
    /// inside the caller's transaction (whose rollback must load `foldedThroughHour` again).
    func fold(through hour: Int64, _ connection: SQLiteConnection) throws {
        guard hour > foldedThroughHour else { return }
        for statement in Self.foldStatements { try connection.run(statement, foldedThroughHour, hour) }
        try connection.run("UPDATE rollup_folded SET through_hour = ?", hour)
        foldedThroughHour = hour
    }

    /// The fold's statements: (?1, ?2] are the hours it adds up. Each reads the link hours of one
    /// project at a time (their key starts with the project), never a scan of the whole table.
    static let foldStatements = [
        """
        INSERT INTO rollup_link_days (project_id, day, link_id, \(counterColumns))
        SELECT r.project_id, r.hour / 24, r.link_id, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs)
        FROM projects p JOIN rollup_link_hours r ON r.project_id = p.id AND r.hour > ?1 AND r.hour <= ?2 GROUP BY 1, 2, 3
        ON CONFLICT DO UPDATE SET \(addCounters)
        """,
        """
        INSERT INTO rollup_project_hours (project_id, hour, \(counterColumns))
        SELECT r.project_id, r.hour, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs)
        FROM projects p JOIN rollup_link_hours r ON r.project_id = p.id AND r.hour > ?1 AND r.hour <= ?2 GROUP BY 1, 2
        ON CONFLICT DO UPDATE SET \(addCounters)
        """,
        """
        INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
        SELECT r.project_id, 'day', r.hour / 24, r.link_id, r.kind, r.currency, sum(r.amount), sum(r.entries)
        FROM projects p JOIN rollup_link_hour_money r ON r.project_id = p.id AND r.hour > ?1 AND r.hour <= ?2 GROUP BY 1, 2, 3, 4, 5, 6
        ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries
        """,
        """
        INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
        SELECT r.project_id, 'hour', r.hour, '', r.kind, r.currency, sum(r.amount), sum(r.entries)
        FROM projects p JOIN rollup_link_hour_money r ON r.project_id = p.id AND r.hour > ?1 AND r.hour <= ?2 GROUP BY 1, 2, 3, 4, 5, 6
        ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries
        """,
    ]

    private struct Upserts {
        let day, linkHour, hour, money, linkHourMoney, tally: Statement
    }

    /// The upserts, prepared once: looking them up by their long SQL text hashed ~2,000 bytes per
    /// batch (callgrind, docs/performance.md).
    private var statements: Upserts?

    private func prepared(_ connection: SQLiteConnection) throws -> Upserts {
        if let statements { return statements }
        let fresh = Upserts(
            day: try connection.statement(Self.upsertDay), linkHour: try connection.statement(Self.upsertLinkHour),
            hour: try connection.statement(Self.upsertHour), money: try connection.statement(Self.upsertMoney),
            linkHourMoney: try connection.statement(Self.upsertLinkHourMoney), tally: try connection.statement(Self.upsertTally))
        statements = fresh
        return fresh
    }

    private static let addCounters =
        "clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs"
    private static let counterColumns =
        "clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs"

    static let upsertLinkHour = """
        INSERT INTO rollup_link_hours (project_id, hour, link_id, \(counterColumns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET \(addCounters)
        """
    static let upsertLinkHourMoney = """
        INSERT INTO rollup_link_hour_money (project_id, hour, link_id, kind, currency, amount, entries) VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries
        """
    static let upsertTally = """
        INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET installs = installs + excluded.installs
        """

    static let upsertDay = """
        INSERT INTO rollup_link_days (project_id, day, link_id, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs
        """
    static let upsertHour = """
        INSERT INTO rollup_project_hours (project_id, hour, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs
        """
    static let upsertMoney = """
        INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries
        """

    /// Adds up what connections without a collector left in the pending tables: the statements
    /// that end migration 0015, run again by the writer when it starts; hours not folded yet go to
    /// the link hours alone (0022).
    static let pendingFlush = [
        """
        INSERT INTO rollup_link_days (project_id, day, link_id, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
        SELECT project_id, at / 86400000, link_id, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2, 3
        ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs
        """,
        """
        INSERT INTO rollup_project_hours (project_id, hour, clicks, bot_clicks, installs, attributed_installs, apple_ads_installs, deterministic_installs, probabilistic_installs, organic_installs, events, signups, paying_installs)
        SELECT project_id, at / 3600000, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE in_hours AND at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2
        ON CONFLICT DO UPDATE SET clicks = clicks + excluded.clicks, bot_clicks = bot_clicks + excluded.bot_clicks, installs = installs + excluded.installs, attributed_installs = attributed_installs + excluded.attributed_installs, apple_ads_installs = apple_ads_installs + excluded.apple_ads_installs, deterministic_installs = deterministic_installs + excluded.deterministic_installs, probabilistic_installs = probabilistic_installs + excluded.probabilistic_installs, organic_installs = organic_installs + excluded.organic_installs, events = events + excluded.events, signups = signups + excluded.signups, paying_installs = paying_installs + excluded.paying_installs
        """,
        """
        INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
        SELECT project_id, 'day', at / 86400000, link_id, kind, currency, sum(amount), sum(entries) FROM rollup_pending_money
        WHERE at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2, 3, 4, 5, 6 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries
        """,
        """
        INSERT INTO rollup_money (project_id, scope, period, link_id, kind, currency, amount, entries)
        SELECT project_id, 'hour', at / 3600000, '', kind, currency, sum(amount), sum(entries) FROM rollup_pending_money
        WHERE in_hours AND at / 3600000 <= (SELECT through_hour FROM rollup_folded) GROUP BY 1, 2, 3, 4, 5, 6 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries
        """,
        """
        INSERT INTO rollup_link_hours (project_id, hour, link_id, \(counterColumns))
        SELECT project_id, at / 3600000, link_id, sum(clicks), sum(bot_clicks), sum(installs), sum(attributed_installs), sum(apple_ads_installs), sum(deterministic_installs), sum(probabilistic_installs), sum(organic_installs), sum(events), sum(signups), sum(paying_installs) FROM rollup_pending WHERE true GROUP BY 1, 2, 3
        ON CONFLICT DO UPDATE SET \(addCounters)
        """,
        """
        INSERT INTO rollup_link_hour_money (project_id, hour, link_id, kind, currency, amount, entries)
        SELECT project_id, at / 3600000, link_id, kind, currency, sum(amount), sum(entries) FROM rollup_pending_money WHERE true
        GROUP BY 1, 2, 3, 4, 5 ON CONFLICT DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries
        """,
        """
        INSERT INTO rollup_tallies (project_id, dimension, hour, value, installs)
        SELECT project_id, dimension, at / 3600000, value, sum(installs) FROM rollup_pending_tallies WHERE true GROUP BY 1, 2, 3, 4
        ON CONFLICT DO UPDATE SET installs = installs + excluded.installs
        """,
        """
        DELETE FROM rollup_pending
        """,
        """
        DELETE FROM rollup_pending_money
        """,
        """
        DELETE FROM rollup_pending_tallies
        """,
    ]
}
