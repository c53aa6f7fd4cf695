import Attribution
import StoreContracts

/// Ad spend on either backend (`SessionSource`).
struct Costs<Source: SessionSource>: CostStore {
    let source: Source

    func save(_ rows: [CostRow], projectID: String, source origin: String, at time: Timestamp) throws -> (added: Int, replaced: Int) {
        try source.writeSession { connection in
            // A row's upsert cannot be refused (its values are checked), so none waits for its answer;
            // how many were new is what the project holds more after them.
            let before = try connection.queryOne(CostRepository.count, projectID) { $0.int(0) } ?? 0
            for row in rows {
                try connection.runUnanswered(
                    CostRepository.upsert, projectID, row.day, row.network, row.campaignKey, row.adGroupID, row.adID, row.campaignID,
                    row.campaignName, row.spendMicros, row.currency, row.impressions, row.clicks, origin, time.milliseconds)
            }
            let added = Int((try connection.queryOne(CostRepository.count, projectID) { $0.int(0) } ?? before) - before)
            return (added, rows.count - added)
        }
    }

    func rows(projectID: String, since: String, until: String) throws -> [CostRow] {
        try source.read { connection in
            try connection.query(CostRepository.range, projectID, since, until) { row in
                CostRow(
                    day: row.string(0), network: row.string(1), campaignID: row.string(2), campaignName: row.string(3),
                    adGroupID: row.string(4), adID: row.string(5), spendMicros: row.int(6), currency: row.string(7),
                    impressions: row.optionalInt(8), clicks: row.optionalInt(9))
            }
        }
    }
}

/// The cost rows' SQL, for both backends.
enum CostRepository {
    static let count = "SELECT count(*) FROM cost_rows WHERE project_id = ?"

    static let upsert = """
        INSERT INTO cost_rows (project_id, day, network, campaign_key, adgroup_id, ad_id, campaign_id, campaign_name, spend_micros,
            currency, impressions, clicks, source, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (project_id, day, network, campaign_key, adgroup_id, ad_id) DO UPDATE SET campaign_id = excluded.campaign_id,
            campaign_name = excluded.campaign_name, spend_micros = excluded.spend_micros, currency = excluded.currency,
            impressions = excluded.impressions, clicks = excluded.clicks, source = excluded.source, updated_at = excluded.updated_at
        """

    static let range = """
        SELECT day, network, campaign_id, campaign_name, adgroup_id, ad_id, spend_micros, currency, impressions, clicks
        FROM cost_rows WHERE project_id = ? AND day >= ? AND day <= ?
        ORDER BY day, network, campaign_key, adgroup_id, ad_id
        """
}
