public import Attribution
import StoreContracts

/// The dashboard's breakdowns and cohorts, from the tallies of migration 0039.
extension ReportService {
    /// The period's sums of `dimensions` and those of the period of the same length before it; an
    /// hour counts in the period it starts in, as in the charts.
    public func breakdowns(project: Project, dimensions: [String], since: Timestamp, until: Timestamp) throws -> (
        current: [String: [String: Int64]], previous: [String: [String: Int64]]
    ) {
        let hour = Self.hour
        let first = Timestamp.ceilDiv(since.milliseconds, hour)
        let end = Timestamp.ceilDiv(until.milliseconds, hour)
        let before = Timestamp.ceilDiv(since.milliseconds - (until.milliseconds - since.milliseconds), hour)
        return (
            try store.stats.tallySums(projectID: project.id, dimensions: dimensions, hours: first..<end),
            try store.stats.tallySums(projectID: project.id, dimensions: dimensions, hours: before..<first)
        )
    }

    /// Cohorts of the installs between consecutive `boundaries`.
    public func cohorts(project: Project, boundaries: [Timestamp]) throws -> CohortTable {
        guard let first = boundaries.first, let last = boundaries.last, boundaries.count >= 2 else { return CohortTable(rows: []) }
        let installs = try series(project: project, boundaries: boundaries).map(\.counts.installs)
        let hours = Timestamp.floorDiv(first.milliseconds, Self.hour)..<Timestamp.ceilDiv(last.milliseconds, Self.hour)
        let tallies = try store.stats.tallyHours(
            projectID: project.id,
            dimensions: [TallyDimension.cohortActive, TallyDimension.cohortEvents, TallyDimension.cohortRevenue], hours: hours)
        return CohortTable.build(
            boundaries: boundaries, installs: installs, tallies: tallies, now: clocks.now(projectID: project.id),
            currency: project.settings.currency)
    }

    static let hour: Int64 = 3_600_000
}
