import Attribution

/// The rollup tables as values: what a recount adds up, and what `rollups check` reads back from
/// a database to compare. Keys are the tables' primary keys; a row that holds nothing equals a
/// missing one.
public struct RollupTables: Equatable, Sendable {
    public struct LinkPeriod: Hashable, Comparable, Sendable {
        public let projectID: String
        public let period: Int64
        public let linkID: String
        public init(projectID: String, period: Int64, linkID: String) {
            self.projectID = projectID
            self.period = period
            self.linkID = linkID
        }
        public static func < (a: Self, b: Self) -> Bool { (a.projectID, a.period, a.linkID) < (b.projectID, b.period, b.linkID) }
    }
    public struct ProjectHour: Hashable, Comparable, Sendable {
        public let projectID: String
        public let hour: Int64
        public init(projectID: String, hour: Int64) {
            self.projectID = projectID
            self.hour = hour
        }
        public static func < (a: Self, b: Self) -> Bool { (a.projectID, a.hour) < (b.projectID, b.hour) }
    }
    /// `scope`: `hour` and `day` are `rollup_money`'s, `link_hour` is `rollup_link_hour_money`.
    public struct MoneyKey: Hashable, Comparable, Sendable {
        public let projectID: String, scope: String, period: Int64, linkID: String, kind: String, currency: String
        public init(projectID: String, scope: String, period: Int64, linkID: String, kind: String, currency: String) {
            self.projectID = projectID
            self.scope = scope
            self.period = period
            self.linkID = linkID
            self.kind = kind
            self.currency = currency
        }
        public static func < (a: Self, b: Self) -> Bool {
            (a.projectID, a.scope, a.period, a.linkID, a.kind, a.currency) < (b.projectID, b.scope, b.period, b.linkID, b.kind, b.currency)
        }
    }
    public struct Money: Equatable, Sendable {
        public var amount: Double
        public var entries: Int64
        public init(amount: Double, entries: Int64) {
            self.amount = amount
            self.entries = entries
        }
    }
    public struct TallyKey: Hashable, Comparable, Sendable {
        public let projectID: String, dimension: String, hour: Int64, value: String
        public init(projectID: String, dimension: String, hour: Int64, value: String) {
            self.projectID = projectID
            self.dimension = dimension
            self.hour = hour
            self.value = value
        }
        public static func < (a: Self, b: Self) -> Bool {
            (a.projectID, a.dimension, a.hour, a.value) < (b.projectID, b.dimension, b.hour, b.value)
        }
    }

    public var linkHours: [LinkPeriod: Counters] = [:]
    public var linkDays: [LinkPeriod: Counters] = [:]
    public var projectHours: [ProjectHour: Counters] = [:]
    public var money: [MoneyKey: Money] = [:]
    public var tallies: [TallyKey: Int64] = [:]

    public init() {}

    public static let hourMilliseconds: Int64 = 3_600_000
    public static let dayMilliseconds: Int64 = 86_400_000

    /// Adds deltas as a writer does: every count in its link's hour, and once its hour is folded
    /// (up to `foldedThroughHour`) in its link's day and, unless it is a move between links, the
    /// project's hour; money likewise.
    public mutating func add(_ deltas: Deltas, foldedThroughHour: Int64 = .max) {
        for delta in deltas.counts {
            let hour = delta.at / Self.hourMilliseconds
            linkHours[LinkPeriod(projectID: delta.projectID, period: hour, linkID: delta.linkID), default: Counters()] += delta.counters
            guard hour <= foldedThroughHour else { continue }
            linkDays[LinkPeriod(projectID: delta.projectID, period: delta.at / Self.dayMilliseconds, linkID: delta.linkID), default: Counters()] +=
                delta.counters
            if delta.inHours { projectHours[ProjectHour(projectID: delta.projectID, hour: hour), default: Counters()] += delta.counters }
        }
        for delta in deltas.money {
            let hour = delta.at / Self.hourMilliseconds
            func add(_ scope: String, _ period: Int64, _ linkID: String) {
                let key = MoneyKey(
                    projectID: delta.projectID, scope: scope, period: period, linkID: linkID, kind: delta.kind.rawValue, currency: delta.currency)
                money[key, default: Money(amount: 0, entries: 0)].amount += delta.amount
                money[key, default: Money(amount: 0, entries: 0)].entries += delta.entries
            }
            add("link_hour", hour, delta.linkID)
            guard hour <= foldedThroughHour else { continue }
            add("day", delta.at / Self.dayMilliseconds, delta.linkID)
            if delta.inHours { add("hour", hour, "") }
        }
        for delta in deltas.tallies {
            tallies[
                TallyKey(projectID: delta.projectID, dimension: delta.dimension, hour: delta.at / Self.hourMilliseconds, value: delta.value),
                default: 0] +=
                delta.count
        }
    }

    /// These tables with the click counts of `stored` (and the referring sites of its installs,
    /// read from their clicks) for hours before `hour` and the days they fall in: what a recount
    /// cannot know once clicks are pruned.
    public func keepingClickCounts(of stored: RollupTables, before hour: Int64) -> RollupTables {
        var kept = self
        func keepClicks<Key: Hashable>(_ table: inout [Key: Counters], _ storedTable: [Key: Counters], _ isBefore: (Key) -> Bool) {
            for key in Set(table.keys).union(storedTable.keys) where isBefore(key) {
                let old = storedTable[key] ?? Counters()
                table[key, default: Counters()].clicks = old.clicks
                table[key, default: Counters()].botClicks = old.botClicks
            }
        }
        keepClicks(&kept.linkHours, stored.linkHours) { $0.period < hour }
        keepClicks(&kept.linkDays, stored.linkDays) { $0.period * 24 < hour }
        keepClicks(&kept.projectHours, stored.projectHours) { $0.hour < hour }
        for key in Set(kept.tallies.keys).union(stored.tallies.keys)
        where key.hour < hour && (key.dimension.hasPrefix("click_") || key.dimension == TallyDimension.installReferrer) {
            kept.tallies[key] = stored.tallies[key]
        }
        return kept
    }

    /// Keeps the rows of hours from `hour` on (days from the day it falls in).
    public func since(hour: Int64) -> RollupTables {
        var kept = RollupTables()
        kept.linkHours = linkHours.filter { $0.key.period >= hour }
        kept.linkDays = linkDays.filter { $0.key.period >= hour / 24 }
        kept.projectHours = projectHours.filter { $0.key.hour >= hour }
        kept.money = money.filter { $0.key.period >= ($0.key.scope == "day" ? hour / 24 : hour) }
        kept.tallies = tallies.filter { $0.key.hour >= hour }
        return kept
    }

    /// One line per row that differs, "table key: stored … recounted …", sorted; empty when equal.
    /// Money compares to a millionth of the amount (sums of doubles in another order).
    public func differences(from recount: RollupTables, limit: Int = 50) -> [String] {
        var lines: [String] = []
        func compare<Key: Hashable & Comparable>(_ table: String, _ stored: [Key: Counters], _ counted: [Key: Counters], _ name: (Key) -> String) {
            for key in Set(stored.keys).union(counted.keys).sorted() {
                let a = stored[key] ?? Counters()
                let b = counted[key] ?? Counters()
                guard a != b else { continue }
                let columns = Counters.columns.indices.filter { a.values[$0] != b.values[$0] }
                    .map { "\(Counters.columns[$0]) \(a.values[$0]) ≠ \(b.values[$0])" }
                lines.append("\(table) \(name(key)): " + columns.joined(separator: ", "))
            }
        }
        compare("rollup_link_hours", linkHours, recount.linkHours) { "\($0.projectID) hour \($0.period) link '\($0.linkID)'" }
        compare("rollup_link_days", linkDays, recount.linkDays) { "\($0.projectID) day \($0.period) link '\($0.linkID)'" }
        compare("rollup_project_hours", projectHours, recount.projectHours) { "\($0.projectID) hour \($0.hour)" }
        for key in Set(money.keys).union(recount.money.keys).sorted() {
            let a = money[key] ?? Money(amount: 0, entries: 0)
            let b = recount.money[key] ?? Money(amount: 0, entries: 0)
            guard a.entries != b.entries || abs(a.amount - b.amount) > 1e-6 * max(1, abs(b.amount)) else { continue }
            let table = key.scope == "link_hour" ? "rollup_link_hour_money" : "rollup_money"
            lines.append(
                "\(table) \(key.projectID) \(key.scope) \(key.period) link '\(key.linkID)' \(key.kind) '\(key.currency)': "
                    + "amount \(a.amount) ≠ \(b.amount), entries \(a.entries) ≠ \(b.entries)")
        }
        for key in Set(tallies.keys).union(recount.tallies.keys).sorted() {
            let a = tallies[key] ?? 0
            let b = recount.tallies[key] ?? 0
            guard a != b else { continue }
            lines.append("rollup_tallies \(key.projectID) \(key.dimension) hour \(key.hour) '\(key.value)': \(a) ≠ \(b)")
        }
        return Array(lines.prefix(limit))
    }
}
