/// One row of the tallies the breakdowns and cohorts read (`rollup_tallies`): a dimension's value
/// and its count in one UTC hour (hours since the epoch). What the count holds depends on the
/// dimension: clicks, installs, events, or money in millionths (`TallyDimension`).
public struct TallyCount: Sendable, Equatable {
    public let hour: Int64
    public let dimension: String
    public let value: String
    public let count: Int64

    public init(hour: Int64, dimension: String, value: String, count: Int64) {
        self.hour = hour
        self.dimension = dimension
        self.value = value
        self.count = count
    }
}

/// The tally dimensions of migration 0039, by the names the triggers give them.
public enum TallyDimension {
    public static let events = "event"
    /// Installs that did the event for the first time.
    public static let eventInstalls = "event_installs"
    /// `currency:name` → millionths of the currency ('' is the project's).
    public static let eventRevenue = "event_revenue"
    /// Day N after install (1, 3, 7, 14, 30) → installs with an event in it.
    public static let cohortActive = "cohort_active"
    /// Last day of a span after install (0, 1, 3, 7, 14, 30) → events in it.
    public static let cohortEvents = "cohort_events"
    /// `currency:last day of the span` → millionths.
    public static let cohortRevenue = "cohort_revenue"
    /// The revenue of a link's installs by the span after install it came in, counted at the
    /// install's hour: `LinkCohortRevenue.value` → millionths (the ROAS report's revenue).
    public static let linkCohortRevenue = "link_cohort_revenue"

    /// Attributed installs by their confidence band (`high`, `medium`, `low`).
    public static let confidence = "confidence"
    /// Human clicks and installs by platform, system (`OperatingSystemGroup`), country and
    /// referring site (`ReferrerHost`; an install's from its click): `BreakdownProperty`'s names.
    public static let clickPlatform = "click_platform"
    public static let clickOS = "click_os"
    public static let clickCountry = "click_country"
    public static let clickReferrer = "click_referrer"
    public static let installPlatform = "install_platform"
    public static let installOS = "install_os"
    public static let installCountry = "install_country"
    public static let installReferrer = "install_referrer"

    /// Money is counted in millionths of the currency unit: exact sums of integers.
    public static let moneyUnit = 1_000_000.0

    /// `currency:rest` split at its first colon (currency codes have none).
    public static func splitCurrency(_ value: String) -> (currency: String, rest: String) {
        guard let colon = value.firstIndex(of: ":") else { return ("", value) }
        return (String(value[..<colon]), String(value[value.index(after: colon)...]))
    }
}
