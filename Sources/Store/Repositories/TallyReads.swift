public import Attribution
import StoreContracts

/// The breakdowns' and cohorts' reads of `rollup_tallies`: one range of its key (project,
/// dimension, hour) per dimension.
extension Stats {
    public func tallySums(projectID: String, dimensions: [String], hours: Range<Int64>) throws -> [String: [String: Int64]] {
        guard !hours.isEmpty else { return [:] }
        try beforeRollupRead()
        return try source.read { connection in
            var sums: [String: [String: Int64]] = [:]
            for dimension in dimensions {
                var values: [String: Int64] = [:]
                _ = try connection.query(
                    """
                    SELECT value, sum(installs) FROM rollup_tallies
                    WHERE project_id = ? AND dimension = ? AND hour >= ? AND hour < ? GROUP BY value
                    """, projectID, dimension, hours.lowerBound, hours.upperBound
                ) { row -> Void in
                    let sum = row.int(1)
                    if sum != 0 { values[row.string(0)] = sum }
                }
                if !values.isEmpty { sums[dimension] = values }
            }
            return sums
        }
    }

    public func tallyHours(projectID: String, dimensions: [String], hours: Range<Int64>) throws -> [TallyCount] {
        guard !hours.isEmpty else { return [] }
        try beforeRollupRead()
        return try source.read { connection in
            var counts: [TallyCount] = []
            for dimension in dimensions {
                counts += try connection.query(
                    """
                    SELECT hour, value, installs FROM rollup_tallies
                    WHERE project_id = ? AND dimension = ? AND hour >= ? AND hour < ? AND installs <> 0
                    """, projectID, dimension, hours.lowerBound, hours.upperBound,
                    map: { TallyCount(hour: $0.int(0), dimension: dimension, value: $0.string(1), count: $0.int(2)) })
            }
            return counts
        }
    }
}
