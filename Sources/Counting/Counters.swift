/// The eleven counts of the count rollups (`rollup_link_hours`, `rollup_link_days`,
/// `rollup_project_hours`), in their columns' order.
public struct Counters: Equatable, Hashable, Sendable {
    public var clicks: Int64 = 0
    public var botClicks: Int64 = 0
    public var installs: Int64 = 0
    public var attributedInstalls: Int64 = 0
    public var appleAdsInstalls: Int64 = 0
    public var deterministicInstalls: Int64 = 0
    public var probabilisticInstalls: Int64 = 0
    public var organicInstalls: Int64 = 0
    public var events: Int64 = 0
    public var signups: Int64 = 0
    public var payingInstalls: Int64 = 0

    public init() {}

    /// The columns, in the order of `values`.
    public static let columns = [
        "clicks", "bot_clicks", "installs", "attributed_installs", "apple_ads_installs", "deterministic_installs",
        "probabilistic_installs", "organic_installs", "events", "signups", "paying_installs",
    ]

    public init(values: [Int64]) {
        precondition(values.count == Self.columns.count)
        (clicks, botClicks, installs, attributedInstalls, appleAdsInstalls) = (values[0], values[1], values[2], values[3], values[4])
        (deterministicInstalls, probabilisticInstalls, organicInstalls) = (values[5], values[6], values[7])
        (events, signups, payingInstalls) = (values[8], values[9], values[10])
    }

    public var values: [Int64] {
        [
            clicks, botClicks, installs, attributedInstalls, appleAdsInstalls, deterministicInstalls, probabilisticInstalls,
            organicInstalls, events, signups, payingInstalls,
        ]
    }

    public var isZero: Bool { self == Counters() }

    public static func += (sum: inout Counters, other: Counters) {
        sum.clicks += other.clicks
        sum.botClicks += other.botClicks
        sum.installs += other.installs
        sum.attributedInstalls += other.attributedInstalls
        sum.appleAdsInstalls += other.appleAdsInstalls
        sum.deterministicInstalls += other.deterministicInstalls
        sum.probabilisticInstalls += other.probabilisticInstalls
        sum.organicInstalls += other.organicInstalls
        sum.events += other.events
        sum.signups += other.signups
        sum.payingInstalls += other.payingInstalls
    }

    public static prefix func - (counters: Counters) -> Counters {
        Counters(values: counters.values.map { -$0 })
    }
}
