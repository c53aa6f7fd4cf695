/// Installs grouped by when they came (a local day or week), and what they did on the days after:
/// the share active on day N (any event in the N-th 24 hours after the install), and events and
/// revenue per install by day N (from the install up to the end of day N). From the cohort
/// tallies of migration 0039, counted at the hour of each install, so a cohort's numbers are those
/// of the hours that start in it, as the charts' buckets are.
public struct CohortTable: Sendable, Equatable {
    public static let days = [1, 3, 7, 14, 30]

    public struct Row: Sendable, Equatable {
        public let start: Timestamp
        public let end: Timestamp
        public var installs = 0
        /// Day N → installs with an event on it.
        public var active: [Int: Int] = [:]
        /// Day N → events from the install to the end of day N.
        public var eventsBy: [Int: Int] = [:]
        /// Day N → revenue from the install to the end of day N, per currency.
        public var revenueBy: [Int: [String: Double]] = [:]
        /// Day N → whether every install of the cohort has lived through day N.
        public var complete: [Int: Bool] = [:]

        public func retention(_ day: Int) -> Double? {
            installs > 0 ? Double(active[day] ?? 0) / Double(installs) : nil
        }
        public func eventsPerInstall(_ day: Int) -> Double? {
            installs > 0 ? Double(eventsBy[day] ?? 0) / Double(installs) : nil
        }
        public func revenuePerInstall(_ day: Int) -> [String: Double] {
            guard installs > 0 else { return [:] }
            return (revenueBy[day] ?? [:]).mapValues { $0 / Double(installs) }
        }
    }

    public var rows: [Row]

    public init(rows: [Row]) { self.rows = rows }

    /// `boundaries`: the cohorts' starts and the last one's end, ascending; `installs`: the
    /// installs of each (the rollups' counts, hours assigned as `tallies` are).
    public static func build(
        boundaries: [Timestamp], installs: [Int], tallies: [TallyCount], now: Timestamp, currency: String
    ) -> CohortTable {
        guard boundaries.count >= 2 else { return CohortTable(rows: []) }
        var rows = (0..<boundaries.count - 1).map { index in
            var row = Row(start: boundaries[index], end: boundaries[index + 1])
            row.installs = index < installs.count ? installs[index] : 0
            for day in days {
                row.complete[day] = now.milliseconds >= row.end.milliseconds + Int64(day + 1) * 86_400_000
            }
            return row
        }
        var spans = [[Int: Int]](repeating: [:], count: rows.count)
        var spanRevenue = [[Int: [String: Double]]](repeating: [:], count: rows.count)
        for tally in tallies {
            guard let index = bucket(ofHour: tally.hour, boundaries) else { continue }
            switch tally.dimension {
            case TallyDimension.cohortActive:
                if let day = Int(tally.value) { rows[index].active[day, default: 0] += Int(tally.count) }
            case TallyDimension.cohortEvents:
                if let last = Int(tally.value) { spans[index][last, default: 0] += Int(tally.count) }
            case TallyDimension.cohortRevenue:
                let (moneyCurrency, lastText) = TallyDimension.splitCurrency(tally.value)
                guard let last = Int(lastText) else { continue }
                spanRevenue[index][last, default: [:]][moneyCurrency.isEmpty ? currency : moneyCurrency, default: 0] +=
                    Double(tally.count) / TallyDimension.moneyUnit
            default: continue
            }
        }
        for index in rows.indices {
            for day in days {
                rows[index].eventsBy[day] = spans[index].filter { $0.key <= day }.values.reduce(0, +)
                var revenue: [String: Double] = [:]
                for (last, amounts) in spanRevenue[index] where last <= day {
                    for (moneyCurrency, amount) in amounts { revenue[moneyCurrency, default: 0] += amount }
                }
                rows[index].revenueBy[day] = revenue.filter { $0.value != 0 }
            }
        }
        return CohortTable(rows: rows)
    }

    /// The cohort an hour starting at `hour` counts in: the last boundary at or before its start
    /// (an hour that starts before the first, in a zone of :30 or :45, counts in the first), as
    /// the rollups' series assigns it.
    static func bucket(ofHour hour: Int64, _ boundaries: [Timestamp]) -> Int? {
        let at = hour * 3_600_000
        guard at < boundaries[boundaries.count - 1].milliseconds else { return nil }
        if at < boundaries[0].milliseconds { return 0 }
        var low = 0
        var high = boundaries.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if boundaries[middle].milliseconds <= at { low = middle } else { high = middle }
        }
        return low
    }
}

extension CohortTable {
    /// An event of a cohort's install, as the rows hold it (times in milliseconds).
    public struct InstallEvent: Sendable {
        public let installID: String
        public let installAt: Int64
        public let at: Int64
        public let revenue: Double?
        public let currency: String?

        public init(installID: String, installAt: Int64, at: Int64, revenue: Double?, currency: String?) {
            self.installID = installID
            self.installAt = installAt
            self.at = at
            self.revenue = revenue
            self.currency = currency
        }
    }

    /// The cohort tallies migration 0039 keeps, counted from rows instead: for the installs of a
    /// few links, whose rows an index finds (the tallies hold the whole project only).
    public static func tallies(of events: [InstallEvent]) -> [TallyCount] {
        struct Key: Hashable {
            let hour: Int64
            let dimension: String
            let value: String
        }
        struct ActiveDay: Hashable {
            let installID: String
            let day: Int64
        }
        var counts: [Key: Int64] = [:]
        var active: Set<ActiveDay> = []
        for event in events {
            let day = (event.at - event.installAt) / 86_400_000
            guard day >= 0, day <= 30 else { continue }
            let hour = event.installAt / 3_600_000
            let span = String(EventTallies.span(day))
            counts[Key(hour: hour, dimension: TallyDimension.cohortEvents, value: span), default: 0] += 1
            if let revenue = event.revenue {
                counts[Key(hour: hour, dimension: TallyDimension.cohortRevenue, value: (event.currency ?? "") + ":" + span), default: 0] +=
                    EventTallies.micros(revenue)
            }
            if EventTallies.activeDays.contains(day), active.insert(ActiveDay(installID: event.installID, day: day)).inserted {
                counts[Key(hour: hour, dimension: TallyDimension.cohortActive, value: String(day)), default: 0] += 1
            }
        }
        return counts.map { TallyCount(hour: $0.key.hour, dimension: $0.key.dimension, value: $0.key.value, count: $0.value) }
    }

    /// How many of `times` (milliseconds) fall in each cohort, an hour counting where it starts.
    public static func counts(of times: [Int64], boundaries: [Timestamp]) -> [Int] {
        var counts = [Int](repeating: 0, count: max(boundaries.count - 1, 0))
        for time in times {
            if let index = bucket(ofHour: time / 3_600_000, boundaries) { counts[index] += 1 }
        }
        return counts
    }
}
