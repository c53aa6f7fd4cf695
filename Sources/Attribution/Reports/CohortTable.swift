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
    private static func bucket(ofHour hour: Int64, _ boundaries: [Timestamp]) -> Int? {
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
