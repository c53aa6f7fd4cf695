/// The cohort spans and money units the event tallies use (`Counting.eventAdded` writes them,
/// `CohortTable` reads them).
public enum EventTallies {
    /// The days after install whose activity cohorts show (`CohortTable.days`).
    public static let activeDays = Set(CohortTable.days.map(Int64.init))

    /// The last day of the span of days after install that day `n` counts in (0, 1, 3, 7, 14, 30).
    public static func span(_ n: Int64) -> Int64 { n <= 1 ? n : n <= 3 ? 3 : n <= 7 ? 7 : n <= 14 ? 14 : 30 }

    /// Millionths, rounded half away from zero.
    public static func micros(_ amount: Double) -> Int64 { Int64((amount * TallyDimension.moneyUnit).rounded()) }
}
