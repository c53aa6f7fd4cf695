import Attribution
import Counting

/// The rollup deltas of one write batch on SQLite's writer: each write hands `Counting`'s deltas
/// for what it stored to its session (`count`), which keeps them here; before the COMMIT the
/// writer adds them up by key and upserts each key once. A write rolled back to its savepoint
/// drops its own deltas (`mark` / `rollBack(to:)`). Clicks are kept as facts and turned into
/// deltas at the flush, off the click's own write.
///
/// Measured alternatives (docs/performance.md, "Dashboard and rollups"): one upsert per fact
/// cost the click path 7%, capture-event 9% and init 5%; deltas appended to a pending table and
/// added up by SQL before each COMMIT cost clicks 2% but capture-event 14% and init 16%. Kept in
/// memory, a batch costs one upsert per distinct key.
final class RollupCollector {
    private(set) var deltas = Deltas()
    private(set) var clicks: [ClickFact] = []

    var isEmpty: Bool { deltas.isEmpty && clicks.isEmpty }

    /// Hours up to this one are in every rollup table; later hours only in the per-link hour
    /// tables until `fold(through:)` adds them to the others (migration 0022). Loaded by the writer
    /// at start from `rollup_folded`, and moved only with it.
    var foldedThroughHour: Int64 = .max

    func add(_ more: Deltas) { deltas.append(more) }
    func add(click: ClickFact) { clicks.append(click) }

    struct Mark { let counts: Int, money: Int, tallies: Int, clicks: Int }

    /// Where the next write's deltas start.
    var mark: Mark { Mark(counts: deltas.counts.count, money: deltas.money.count, tallies: deltas.tallies.count, clicks: clicks.count) }

    func rollBack(to mark: Mark) {
        deltas.counts.removeSubrange(mark.counts...)
        deltas.money.removeSubrange(mark.money...)
        deltas.tallies.removeSubrange(mark.tallies...)
        clicks.removeSubrange(mark.clicks...)
    }

    func clear() {
        deltas.counts.removeAll(keepingCapacity: true)
        deltas.money.removeAll(keepingCapacity: true)
        deltas.tallies.removeAll(keepingCapacity: true)
        clicks.removeAll(keepingCapacity: true)
    }

    /// The clicks a link's hour rollups will hold once this batch is added up: what they hold,
    /// with what the batch counted of the link so far (a deleted link's clicks move).
    func clickHours(projectID: String, linkID: String, _ connection: SQLiteConnection) throws -> [(hour: Int64, clicks: Int64, botClicks: Int64)] {
        var hours: [Int64: (clicks: Int64, botClicks: Int64)] = [:]
        for (hour, clicks, bots) in try connection.query(
            "SELECT hour, clicks, bot_clicks FROM rollup_link_hours WHERE project_id = ? AND link_id = ? AND (clicks <> 0 OR bot_clicks <> 0)",
            projectID, linkID, map: { ($0.int(0), $0.int(1), $0.int(2)) })
        {
            hours[hour] = (clicks, bots)
        }
        var pending = deltas
        for click in clicks where click.projectID == projectID && click.linkID == linkID { pending.append(Counting.click(click)) }
        for delta in pending.counts where delta.projectID == projectID && delta.linkID == linkID {
            hours[delta.at / 3_600_000, default: (0, 0)].clicks += delta.counters.clicks
            hours[delta.at / 3_600_000, default: (0, 0)].botClicks += delta.counters.botClicks
        }
        return hours.sorted { $0.key < $1.key }.map { (hour: $0.key, clicks: $0.value.clicks, botClicks: $0.value.botClicks) }
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
        var all = deltas
        for click in clicks { all.append(Counting.click(click)) }
        var days: [LinkPeriodKey: Counters] = [:]
        var linkHours: [LinkPeriodKey: Counters] = [:]
        var hours: [HourKey: Counters] = [:]
        // An hour not folded yet goes to the link's hour alone; the fold adds it to the rest.
        for delta in all.counts {
            let hour = delta.at / 3_600_000
            linkHours[LinkPeriodKey(projectID: delta.projectID, period: hour, linkID: delta.linkID), default: Counters()] += delta.counters
            guard hour <= foldedThroughHour else { continue }
            days[LinkPeriodKey(projectID: delta.projectID, period: delta.at / 86_400_000, linkID: delta.linkID), default: Counters()] +=
                delta.counters
            if delta.inHours { hours[HourKey(projectID: delta.projectID, hour: hour), default: Counters()] += delta.counters }
        }
        var sums: [MoneyKey: (amount: Double, entries: Int64)] = [:]
        for delta in all.money {
            let hour = delta.at / 3_600_000
            func add(_ scope: String, _ period: Int64, _ linkID: String) {
                let key = MoneyKey(
                    projectID: delta.projectID, scope: scope, period: period, linkID: linkID, kind: delta.kind.rawValue, currency: delta.currency)
                sums[key, default: (0, 0)].amount += delta.amount
                sums[key, default: (0, 0)].entries += delta.entries
            }
            add("link_hour", hour, delta.linkID)
            guard hour <= foldedThroughHour else { continue }
            add("day", delta.at / 86_400_000, delta.linkID)
            if delta.inHours { add("hour", hour, "") }
        }
        var tallySums: [TallyKey: Int64] = [:]
        for delta in all.tallies {
            tallySums[TallyKey(projectID: delta.projectID, dimension: delta.dimension, hour: delta.at / 3_600_000, value: delta.value), default: 0] +=
                delta.count
        }
        let statements = try prepared(connection)
        for (key, c) in days where !c.isZero {
            try statements.day.run(
                key.projectID, key.period, key.linkID, c.clicks, c.botClicks, c.installs, c.attributedInstalls, c.appleAdsInstalls,
                c.deterministicInstalls, c.probabilisticInstalls, c.organicInstalls, c.events, c.signups, c.payingInstalls)
        }
        for (key, c) in linkHours where !c.isZero {
            try statements.linkHour.run(
                key.projectID, key.period, key.linkID, c.clicks, c.botClicks, c.installs, c.attributedInstalls, c.appleAdsInstalls,
                c.deterministicInstalls, c.probabilisticInstalls, c.organicInstalls, c.events, c.signups, c.payingInstalls)
        }
        for (key, c) in hours where !c.isZero {
            try statements.hour.run(
                key.projectID, key.hour, c.clicks, c.botClicks, c.installs, c.attributedInstalls, c.appleAdsInstalls,
                c.deterministicInstalls, c.probabilisticInstalls, c.organicInstalls, c.events, c.signups, c.payingInstalls)
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
}
