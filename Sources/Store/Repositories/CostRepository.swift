import Attribution
import StoreContracts

/// Ad spend on either backend (`SessionSource`).
struct Costs<Source: SessionSource>: CostStore {
    let source: Source

    func save(_ rows: [CostRow], projectID: String, source origin: String, at time: Timestamp) throws -> (added: Int, replaced: Int) {
        try source.writeSession { connection in
            var replaced = 0
            for row in rows {
                let existed =
                    try connection.queryOne(
                        CostRepository.exists, projectID, row.day, row.network, row.campaignKey, row.adGroupID, row.adID, map: { $0.bool(0) })
                    ?? false
                if existed { replaced += 1 }
                try connection.run(
                    CostRepository.upsert, projectID, row.day, row.network, row.campaignKey, row.adGroupID, row.adID, row.campaignID,
                    row.campaignName, row.spendMicros, row.currency, row.impressions, row.clicks, origin, time.milliseconds)
            }
            return (rows.count - replaced, replaced)
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
    static let exists = """
        SELECT EXISTS (SELECT 1 FROM cost_rows WHERE project_id = ? AND day = ? AND network = ? AND campaign_key = ?
            AND adgroup_id = ? AND ad_id = ?)
        """

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
