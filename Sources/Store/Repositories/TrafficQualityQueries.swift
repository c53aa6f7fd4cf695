import SQLValues
import StoreContracts

extension Browse {
    func trafficQuality(projectID: String, since: Int64, until: Int64) throws -> TrafficQualityRows {
        try source.read { connection in
            let installs =
                try connection.queryOne(TrafficQualitySQL.installs, projectID, since, until) { Int($0.int(0)) } ?? 0
            let groups = try connection.query(TrafficQualitySQL.groups, projectID, since, until) { row in
                TrafficQualityRows.Group(
                    rejectedReasons: row.optionalString(0).map(JSONText.decodeStrings) ?? [],
                    flags: row.optionalString(1).map(JSONText.decodeStrings) ?? [], source: row.optionalString(2),
                    campaign: row.optionalString(3), installs: Int(row.int(4)))
            }
            return TrafficQualityRows(installs: installs, groups: groups)
        }
    }
}

enum TrafficQualitySQL {
    static let installs = "SELECT count(*) FROM installs WHERE project_id = ? AND created_at >= ? AND created_at < ? AND is_test = FALSE"
    /// Through `installs_quality` (0053): only the installs something was said of. The click is
    /// the refused one, else the flagged install's own.
    static let groups = """
        SELECT i.rejected_reasons, i.quality_flags, c.utm_source, c.utm_campaign, count(*)
        FROM installs i LEFT JOIN clicks c ON c.click_id = coalesce(i.rejected_click_id, i.click_id)
        WHERE i.project_id = ? AND i.created_at >= ? AND i.created_at < ?
            AND (i.rejected_reasons IS NOT NULL OR i.quality_flags IS NOT NULL) AND i.is_test = FALSE
        GROUP BY i.rejected_reasons, i.quality_flags, c.utm_source, c.utm_campaign
        ORDER BY count(*) DESC, c.utm_source, c.utm_campaign
        """
}
