import Attribution
import SQLValues
import StoreContracts

/// Apple's postback copies on either backend.
struct ApplePostbacks<Source: SessionSource>: ApplePostbackStore {
    let source: Source

    static var columns: String {
        """
        id, project_id, framework, version, key_id, development, dedupe_key, ad_network_id, source_identifier, campaign_id,
        app_id, source_app_id, source_domain, fidelity_type, interaction_type, impression_type, conversion_type, redownload,
        did_win, sequence_index, fine_value, coarse_value, country, marketplace, publisher_item_id, raw_body, received_at
        """
    }

    static var insertSQL: String {
        """
        INSERT INTO skan_postbacks (\(columns))
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT DO NOTHING
        """
    }

    func insert(_ stored: StoredApplePostback, messages: [OutboxMessage]) throws -> Bool {
        let postback = stored.postback
        let values: [any SQLBindable] = [
            stored.id, stored.projectID, postback.framework.rawValue, postback.version, postback.keyID, postback.isDevelopment,
            postback.dedupeKey, postback.adNetworkID, postback.sourceIdentifier, postback.campaignID, postback.appID,
            postback.sourceAppID, postback.sourceDomain, postback.fidelityType, postback.interactionType, postback.impressionType,
            postback.conversionType, postback.redownload, postback.didWin, postback.sequenceIndex, postback.fineValue,
            postback.coarseValue?.rawValue, postback.country, postback.marketplace, postback.publisherItemID, stored.rawBody,
            stored.receivedAt.milliseconds,
        ]
        return try source.writeSession { connection in
            guard try connection.run(Self.insertSQL, values: values.map(\.sqlValue)) == 1 else { return false }
            try OutboxRepository.insert(messages, connection)
            return true
        }
    }

    func list(projectID: String, since: Timestamp, until: Timestamp, before: (Timestamp, String)?, limit: Int) throws
        -> [StoredApplePostback]
    {
        try source.read { connection in
            guard let (time, id) = before, time < until else {
                return try connection.query(
                    "SELECT \(Self.columns) FROM skan_postbacks WHERE project_id = ? AND received_at >= ? AND received_at < ? "
                        + "ORDER BY received_at DESC, id DESC LIMIT ?", projectID, since.milliseconds, until.milliseconds, limit,
                    map: Self.stored)
            }
            // The cursor is the last row of the page before: older rows, or as old with a smaller id.
            return try connection.query(
                "SELECT \(Self.columns) FROM skan_postbacks WHERE project_id = ? AND received_at >= ? "
                    + "AND (received_at < ? OR (received_at = ? AND id < ?)) ORDER BY received_at DESC, id DESC LIMIT ?",
                projectID, since.milliseconds, time.milliseconds, time.milliseconds, id, limit, map: Self.stored)
        }
    }

    func tallies(projectID: String, since: Timestamp, until: Timestamp) throws -> [ApplePostbackTally] {
        try source.read { connection in
            try connection.query(
                """
                SELECT framework, ad_network_id, coalesce(source_identifier, CAST(campaign_id AS TEXT), ''), sequence_index, redownload,
                    fine_value, coarse_value, count(*)
                FROM skan_postbacks WHERE project_id = ? AND received_at >= ? AND received_at < ?
                GROUP BY framework, ad_network_id, coalesce(source_identifier, CAST(campaign_id AS TEXT), ''), sequence_index,
                    redownload, fine_value, coarse_value
                ORDER BY 1, 2, 3, 4
                """, projectID, since.milliseconds, until.milliseconds
            ) { row in
                ApplePostbackTally(
                    framework: ApplePostback.Framework(rawValue: row.string(0)) ?? .skadnetwork, adNetworkID: row.string(1),
                    source: row.string(2), sequenceIndex: Int(row.int(3)), redownload: row.bool(4),
                    fineValue: row.optionalInt(5).map(Int.init), coarseValue: row.optionalString(6).flatMap(SKANSchema.Coarse.init),
                    count: Int(row.int(7)))
            }
        }
    }

    static func stored(_ row: some ColumnReader) -> StoredApplePostback {
        let postback = ApplePostback(
            framework: ApplePostback.Framework(rawValue: row.string("framework")) ?? .skadnetwork, version: row.optionalString("version"),
            keyID: row.string("key_id"), isDevelopment: row.bool("development"), dedupeKey: row.string("dedupe_key"),
            adNetworkID: row.string("ad_network_id"), sourceIdentifier: row.optionalString("source_identifier"),
            campaignID: row.optionalInt("campaign_id"), appID: row.int("app_id"), sourceAppID: row.optionalInt("source_app_id"),
            sourceDomain: row.optionalString("source_domain"), fidelityType: row.optionalInt("fidelity_type").map(Int.init),
            interactionType: row.optionalString("interaction_type"), impressionType: row.optionalString("impression_type"),
            conversionType: row.string("conversion_type"), redownload: row.bool("redownload"),
            didWin: row.optionalString("did_win").map { $0 == "1" || $0 == "t" }, sequenceIndex: Int(row.int("sequence_index")),
            fineValue: row.optionalInt("fine_value").map(Int.init), coarseValue: row.optionalString("coarse_value").flatMap(SKANSchema.Coarse.init),
            country: row.optionalString("country"), marketplace: row.optionalString("marketplace"),
            publisherItemID: row.optionalInt("publisher_item_id"))
        return StoredApplePostback(
            id: row.string("id"), projectID: row.string("project_id"), postback: postback, rawBody: row.string("raw_body"),
            receivedAt: Timestamp(milliseconds: row.int("received_at")))
    }
}
