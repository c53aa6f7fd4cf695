public import Attribution
import StoreContracts

/// The dashboard's breakdowns and cohorts, from the tallies of migration 0039.
extension ReportService {
    /// The period's sums of `dimensions` and those of the period of the same length before it; an
    /// hour counts in the period it starts in, as in the charts. What comes before today (UTC) is
    /// summed once and kept (`DashboardCache`, as the overview's stats are), today's is live: a
    /// 90-day view of countries adds up ~170,000 hour rows at 10 million clicks.
    public func breakdowns(project: Project, dimensions: [String], since: Timestamp, until: Timestamp) throws -> (
        current: [String: [String: Int64]], previous: [String: [String: Int64]]
    ) {
        let hour = Self.hour
        let first = Timestamp.ceilDiv(since.milliseconds, hour)
        let end = Timestamp.ceilDiv(until.milliseconds, hour)
        let before = Timestamp.ceilDiv(since.milliseconds - (until.milliseconds - since.milliseconds), hour)
        let today = Timestamp.floorDiv(clocks.now(projectID: project.id).milliseconds, Self.day) * 24
        let what = dimensions.joined(separator: ",")
        func sums(_ hours: Range<Int64>) throws -> [String: [String: Int64]] {
            let closed = hours.lowerBound..<max(hours.lowerBound, min(hours.upperBound, today))
            let open = max(hours.lowerBound, min(hours.upperBound, today))..<hours.upperBound
            var total: [String: [String: Int64]] = [:]
            if !closed.isEmpty {
                let key = BreakdownCache.Key(
                    projectID: project.id, since: closed.lowerBound, until: closed.upperBound, currency: "", what: what)
                total = try breakdownCache.stats(for: key) { [store] in
                    try store.stats.tallySums(projectID: project.id, dimensions: dimensions, hours: closed)
                }
            }
            if !open.isEmpty {
                for (dimension, values) in try store.stats.tallySums(projectID: project.id, dimensions: dimensions, hours: open) {
                    total[dimension, default: [:]].merge(values, uniquingKeysWith: +)
                }
            }
            return total
        }
        return (try sums(first..<end), try sums(before..<first))
    }

    /// Cohorts of the installs between consecutive `boundaries`: the project's from the tallies, or
    /// those of `linkIDs` (a link, a campaign's links) from their installs' rows.
    public func cohorts(project: Project, boundaries: [Timestamp], linkIDs: [String]? = nil) throws -> CohortTable {
        guard let first = boundaries.first, let last = boundaries.last, boundaries.count >= 2 else { return CohortTable(rows: []) }
        if let linkIDs {
            // The hours that start in the range, as the tallies' cohorts hold them. Counted from the
            // rows and kept (fresh 30 s, then refreshed in the background as the stats are): a
            // campaign of 50 links at 1 million installs reads ~50,000 rows, 0.14 s.
            let since = Timestamp.floorDiv(first.milliseconds, Self.hour) * Self.hour
            let until = Timestamp.ceilDiv(last.milliseconds, Self.hour) * Self.hour
            let key = LinkCohortCache.Key(projectID: project.id, since: since, until: until, currency: "", what: linkIDs.joined(separator: ","))
            let counted = try linkCohortCache.stats(for: key) { [store] in
                let rows = try store.browse.linkCohortRows(
                    projectID: project.id, linkIDs: linkIDs, since: Timestamp(milliseconds: since), until: Timestamp(milliseconds: until))
                return LinkCohortCounts(installs: rows.installs, tallies: CohortTable.tallies(of: rows.events))
            }
            return CohortTable.build(
                boundaries: boundaries, installs: CohortTable.counts(of: counted.installs, boundaries: boundaries),
                tallies: counted.tallies, now: clocks.now(projectID: project.id), currency: project.settings.currency)
        }
        let installs = try series(project: project, boundaries: boundaries).map(\.counts.installs)
        let hours = Timestamp.floorDiv(first.milliseconds, Self.hour)..<Timestamp.ceilDiv(last.milliseconds, Self.hour)
        let tallies = try store.stats.tallyHours(
            projectID: project.id,
            dimensions: [TallyDimension.cohortActive, TallyDimension.cohortEvents, TallyDimension.cohortRevenue], hours: hours)
        return CohortTable.build(
            boundaries: boundaries, installs: installs, tallies: tallies, now: clocks.now(projectID: project.id),
            currency: project.settings.currency)
    }

    /// Every link's human clicks on each of the last `count` UTC days, today last: the past from
    /// `DashboardCache` (refreshed as the stats are), today's live.
    public func linkDailyClicks(project: Project, count: Int = 30) throws -> [String: [Int]] {
        let today = Timestamp.floorDiv(clocks.now(projectID: project.id).milliseconds, Self.day)
        let past = (today - Int64(count) + 1)..<today
        let key = LinkDaysCache.Key(projectID: project.id, since: past.lowerBound, until: past.upperBound, currency: "")
        var days = try linkDaysCache.stats(for: key) { [store] in try store.browse.linkDailyClicks(projectID: project.id, days: past) }
        for (link, clicks) in try store.browse.linkDailyClicks(projectID: project.id, days: today..<today + 1) {
            days[link, default: [:]].merge(clicks, uniquingKeysWith: +)
        }
        return days.mapValues { clicks in (past.lowerBound...today).map { clicks[$0] ?? 0 } }
    }

    static let hour: Int64 = 3_600_000
}

typealias LinkDaysCache = DashboardCache<[String: [Int64: Int]]>

/// A few links' installs (their times) and cohort tallies, counted from their rows.
struct LinkCohortCounts: Sendable {
    let installs: [Int64]
    let tallies: [TallyCount]
}

typealias LinkCohortCache = DashboardCache<LinkCohortCounts>

typealias BreakdownCache = DashboardCache<[String: [String: Int64]]>
