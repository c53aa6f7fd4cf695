/// What facts add to the rollups: signed counts, money and tallies, each at a time (milliseconds
/// since the epoch) that the rollups file under its hour and day. A writer adds a batch's deltas
/// up by key before it writes them (SQLite's collector, PostgreSQL's delta rows and fold).
public struct Deltas: Equatable, Sendable {
    public var counts: [CountDelta] = []
    public var money: [MoneyDelta] = []
    public var tallies: [TallyDelta] = []

    public init() {}

    public var isEmpty: Bool { counts.isEmpty && money.isEmpty && tallies.isEmpty }

    public mutating func append(_ other: Deltas) {
        counts += other.counts
        money += other.money
        tallies += other.tallies
    }

    /// The deltas of `factor` facts alike (a recount's clicks, grouped by what counts of them).
    public func scaled(by factor: Int64) -> Deltas {
        var scaled = self
        for index in scaled.counts.indices {
            scaled.counts[index].counters = Counters(values: scaled.counts[index].counters.values.map { $0 * factor })
        }
        for index in scaled.money.indices {
            scaled.money[index].amount *= Double(factor)
            scaled.money[index].entries *= factor
        }
        for index in scaled.tallies.indices { scaled.tallies[index].count *= factor }
        return scaled
    }

    public var negated: Deltas {
        var negated = self
        for index in negated.counts.indices { negated.counts[index].counters = -negated.counts[index].counters }
        for index in negated.money.indices {
            negated.money[index].amount = -negated.money[index].amount
            negated.money[index].entries = -negated.money[index].entries
        }
        for index in negated.tallies.indices { negated.tallies[index].count = -negated.tallies[index].count }
        return negated
    }

    /// The same deltas with those of one key added up and those that add up to nothing left out:
    /// a change counted as "take the old state back, count the new one" leaves only what changed.
    public var netted: Deltas {
        var result = Deltas()
        var counts: [CountKey: Counters] = [:]
        var countOrder: [CountKey] = []
        for delta in self.counts {
            let key = CountKey(projectID: delta.projectID, at: delta.at, linkID: delta.linkID, inHours: delta.inHours)
            if counts[key] == nil { countOrder.append(key) }
            counts[key, default: Counters()] += delta.counters
        }
        for key in countOrder where counts[key]?.isZero == false {
            result.counts.append(CountDelta(projectID: key.projectID, at: key.at, linkID: key.linkID, inHours: key.inHours, counters: counts[key]!))
        }
        var money: [MoneyKey: (amount: Double, entries: Int64)] = [:]
        var moneyOrder: [MoneyKey] = []
        for delta in self.money {
            let key = MoneyKey(
                projectID: delta.projectID, at: delta.at, linkID: delta.linkID, inHours: delta.inHours, kind: delta.kind, currency: delta.currency)
            if money[key] == nil { moneyOrder.append(key) }
            money[key, default: (0, 0)].amount += delta.amount
            money[key, default: (0, 0)].entries += delta.entries
        }
        for key in moneyOrder {
            let sum = money[key]!
            // Entries count the rows summed: money that adds up to 0 over rows still shows.
            guard sum.entries != 0 || sum.amount != 0 else { continue }
            result.money.append(
                MoneyDelta(
                    projectID: key.projectID, at: key.at, linkID: key.linkID, inHours: key.inHours, kind: key.kind, currency: key.currency,
                    amount: sum.amount, entries: sum.entries))
        }
        var tallies: [TallyKey: Int64] = [:]
        var tallyOrder: [TallyKey] = []
        for delta in self.tallies {
            let key = TallyKey(projectID: delta.projectID, at: delta.at, dimension: delta.dimension, value: delta.value)
            if tallies[key] == nil { tallyOrder.append(key) }
            tallies[key, default: 0] += delta.count
        }
        for key in tallyOrder where tallies[key] != 0 {
            result.tallies.append(TallyDelta(projectID: key.projectID, at: key.at, dimension: key.dimension, value: key.value, count: tallies[key]!))
        }
        return result
    }

    private struct CountKey: Hashable {
        let projectID: String, at: Int64, linkID: String, inHours: Bool
    }
    private struct MoneyKey: Hashable {
        let projectID: String, at: Int64, linkID: String, inHours: Bool, kind: MoneyKind, currency: String
    }
    private struct TallyKey: Hashable {
        let projectID: String, at: Int64, dimension: String, value: String
    }
}

/// Counts of a project at a time under a link ('' is "no link"). `inHours` false: a move between
/// links, which the project's hourly totals (no link) do not see.
public struct CountDelta: Equatable, Sendable {
    public var projectID: String
    public var at: Int64
    public var linkID: String
    public var inHours: Bool
    public var counters: Counters

    public init(projectID: String, at: Int64, linkID: String, inHours: Bool, counters: Counters) {
        self.projectID = projectID
        self.at = at
        self.linkID = linkID
        self.inHours = inHours
        self.counters = counters
    }
}

/// Money of one kind and currency ('' is the project's), with the rows it sums.
public struct MoneyDelta: Equatable, Sendable {
    public var projectID: String
    public var at: Int64
    public var linkID: String
    public var inHours: Bool
    public var kind: MoneyKind
    public var currency: String
    public var amount: Double
    public var entries: Int64

    public init(
        projectID: String, at: Int64, linkID: String, inHours: Bool, kind: MoneyKind, currency: String, amount: Double, entries: Int64
    ) {
        self.projectID = projectID
        self.at = at
        self.linkID = linkID
        self.inHours = inHours
        self.kind = kind
        self.currency = currency
        self.amount = amount
        self.entries = entries
    }
}

/// `rollup_money.kind`: a captured payment, or an event's revenue.
public enum MoneyKind: String, Hashable, Sendable {
    case payment, event
}

/// One more (or less) of a dimension's value (`rollup_tallies`); what `count` holds depends on
/// the dimension (`TallyDimension`).
public struct TallyDelta: Equatable, Sendable {
    public var projectID: String
    public var at: Int64
    public var dimension: String
    public var value: String
    public var count: Int64

    public init(projectID: String, at: Int64, dimension: String, value: String, count: Int64) {
        self.projectID = projectID
        self.at = at
        self.dimension = dimension
        self.value = value
        self.count = count
    }
}
