public import Attribution

public struct AppleAdsNameRepository: AppleAdsNameStore {
    let database: Database

    public init(database: Database) { self.database = database }

    public func credentials(projectID: String) throws -> AppleAdsCredentials? {
        try database.read { connection in
            try connection.queryOne("""
                SELECT client_id, team_id, key_id, org_id, private_key FROM apple_ads_credentials WHERE project_id = ?
                """, projectID) {
                AppleAdsCredentials(clientID: $0.string(0), teamID: $0.string(1), keyID: $0.string(2), orgID: $0.string(3), privateKey: $0.string(4))
            }
        }
    }

    public func setCredentials(_ credentials: AppleAdsCredentials, projectID: String, at time: Timestamp) throws {
        try database.writeAndWait { connection in
            try connection.run("""
                INSERT INTO apple_ads_credentials (project_id, client_id, team_id, key_id, org_id, private_key, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (project_id) DO UPDATE SET client_id = excluded.client_id, team_id = excluded.team_id,
                    key_id = excluded.key_id, org_id = excluded.org_id, private_key = excluded.private_key, updated_at = excluded.updated_at
                """, projectID, credentials.clientID, credentials.teamID, credentials.keyID, credentials.orgID, credentials.privateKey,
                time.milliseconds, time.milliseconds)
        }
    }

    public func deleteCredentials(projectID: String) throws -> Bool {
        try database.writeAndWait { connection in
            try connection.run("DELETE FROM apple_ads_credentials WHERE project_id = ?", projectID) > 0
        }
    }

    public func names(projectID: String) throws -> AppleAdsNames {
        try database.read { connection in
            var names = AppleAdsNames()
            for (kind, id, name) in try connection.query("SELECT kind, id, name FROM apple_ads_names WHERE project_id = ?", projectID,
                                                         map: { ($0.string(0), $0.string(1), $0.string(2)) }) {
                guard let kind = AppleAdsNames.Kind(rawValue: kind) else { continue }
                names.byKind[kind, default: [:]][id] = name
            }
            return names
        }
    }

    public func names(of answer: AppleAdsAnswer, projectID: String) throws -> AppleAdsNames {
        try database.read { connection in try Self.names(of: answer, projectID: projectID, connection) }
    }

    static func names(of answer: AppleAdsAnswer, projectID: String, _ connection: SQLiteConnection) throws -> AppleAdsNames {
        var names = AppleAdsNames()
        for (kind, id) in [(AppleAdsNames.Kind.campaign, answer.campaignID), (.adGroup, answer.adGroupID), (.keyword, answer.keywordID)] {
            guard let id, let name = try connection.queryOne(
                "SELECT name FROM apple_ads_names WHERE project_id = ? AND kind = ? AND id = ?", projectID, kind.rawValue, id,
                map: { $0.string(0) }) else { continue }
            names.byKind[kind, default: [:]][id] = name
        }
        return names
    }

    public func saveName(_ name: String, kind: AppleAdsNames.Kind, id: String, projectID: String, at time: Timestamp) throws {
        try database.writeAndWait { connection in
            try connection.run("""
                INSERT INTO apple_ads_names (project_id, kind, id, name, fetched_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (project_id, kind, id) DO UPDATE SET name = excluded.name, fetched_at = excluded.fetched_at
                """, projectID, kind.rawValue, id, name, time.milliseconds)
        }
    }
}
