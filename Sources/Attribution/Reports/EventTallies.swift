/// What one stored event adds to the breakdown and cohort tallies (migration 0039), given what is
/// known of its install's other events; the same rows as the SQL of SQLite's `breakdown_event_insert`
/// and PostgreSQL's `breakdown_event_change`, which the writer's collector skips by calling this.
public enum EventTallies {
    public struct Event: Sendable {
        public var projectID: String
        /// When it is charted, and when its install was made (milliseconds).
        public var at: Int64
        public var installAt: Int64
        public var name: String
        public var currency: String?
        public var revenue: Double?
        /// The earliest charted time of the install's other events of this name; nil without one.
        public var earliestOtherOfName: Int64?
        /// Its day after install is 1, 3, 7, 14 or 30 and no other event of the install is on it.
        public var firstOnItsDay: Bool

        public init(
            projectID: String, at: Int64, installAt: Int64, name: String, currency: String?, revenue: Double?,
            earliestOtherOfName: Int64?, firstOnItsDay: Bool
        ) {
            self.projectID = projectID
            self.at = at
            self.installAt = installAt
            self.name = name
            self.currency = currency
            self.revenue = revenue
            self.earliestOtherOfName = earliestOtherOfName
            self.firstOnItsDay = firstOnItsDay
        }
    }

    public struct Delta: Sendable, Equatable {
        public let at: Int64
        public let dimension: String
        public let value: String
        public let count: Int64
    }

    /// The days after install whose activity cohorts show (`CohortTable.days`).
    public static let activeDays = Set(CohortTable.days.map(Int64.init))

    /// The last day of the span of days after install that day `n` counts in (0, 1, 3, 7, 14, 30).
    public static func span(_ n: Int64) -> Int64 { n <= 1 ? n : n <= 3 ? 3 : n <= 7 ? 7 : n <= 14 ? 14 : 30 }

    /// Millionths, rounded half away from zero (SQLite's `round`).
    public static func micros(_ amount: Double) -> Int64 { Int64((amount * TallyDimension.moneyUnit).rounded()) }

    public static func deltas(_ event: Event) -> [Delta] {
        var deltas = [Delta(at: event.at, dimension: TallyDimension.events, value: event.name, count: 1)]
        // First of its name when no other is as early; the one that was first then is no longer.
        if let earliest = event.earliestOtherOfName {
            if earliest > event.at {
                deltas.append(Delta(at: event.at, dimension: TallyDimension.eventInstalls, value: event.name, count: 1))
                deltas.append(Delta(at: earliest, dimension: TallyDimension.eventInstalls, value: event.name, count: -1))
            }
        } else {
            deltas.append(Delta(at: event.at, dimension: TallyDimension.eventInstalls, value: event.name, count: 1))
        }
        let currency = event.currency ?? ""
        if let revenue = event.revenue {
            deltas.append(Delta(at: event.at, dimension: TallyDimension.eventRevenue, value: currency + ":" + event.name, count: micros(revenue)))
        }
        let day = (event.at - event.installAt) / 86_400_000
        guard day >= 0, day <= 30 else { return deltas }
        let span = String(span(day))
        deltas.append(Delta(at: event.installAt, dimension: TallyDimension.cohortEvents, value: span, count: 1))
        if let revenue = event.revenue {
            deltas.append(Delta(at: event.installAt, dimension: TallyDimension.cohortRevenue, value: currency + ":" + span, count: micros(revenue)))
        }
        if event.firstOnItsDay, activeDays.contains(day) {
            deltas.append(Delta(at: event.installAt, dimension: TallyDimension.cohortActive, value: String(day), count: 1))
        }
        return deltas
    }
}
