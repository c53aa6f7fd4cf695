public import Attribution

public struct AppleAdsNameRepository: AppleAdsNameStore {
    let database: Database

    public init(database: Database) { self.database = database }

    /// Statements shared with PostgreSQL (`PGAppleAdsNameStore`).
    static let credentialsOfProject = "SELECT client_id, team_id, key_id, org_id, private_key FROM apple_ads_credentials WHERE project_id = ?"
    static let upsertCredentials = """
        INSERT INTO apple_ads_credentials (project_id, client_id, team_id, key_id, org_id, private_key, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (project_id) DO UPDATE SET client_id = excluded.client_id, team_id = excluded.team_id,
            key_id = excluded.key_id, org_id = excluded.org_id, private_key = excluded.private_key, updated_at = excluded.updated_at
        """
    static let deleteCredentialsOfProject = "DELETE FROM apple_ads_credentials WHERE project_id = ?"
    static let namesOfProject = "SELECT kind, id, name FROM apple_ads_names WHERE project_id = ?"
    static let nameByID = "SELECT name FROM apple_ads_names WHERE project_id = ? AND kind = ? AND id = ?"
    static let upsertName = """
        INSERT INTO apple_ads_names (project_id, kind, id, name, fetched_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (project_id, kind, id) DO UPDATE SET name = excluded.name, fetched_at = excluded.fetched_at
        """

    static func credentials(_ row: some ColumnReader) -> AppleAdsCredentials {
        AppleAdsCredentials(clientID: row.string(0), teamID: row.string(1), keyID: row.string(2), orgID: row.string(3), privateKey: row.string(4))
    }

    static func upsertValues(_ credentials: AppleAdsCredentials, projectID: String, at time: Timestamp) -> [PGValue] {
        let values: [any PGBindable] = [projectID, credentials.clientID, credentials.teamID, credentials.keyID, credentials.orgID,
                                        credentials.privateKey, time.milliseconds, time.milliseconds]
        return values.map(\.pgValue)
    }

    /// Every fetched name of a project, from its (kind, id, name) rows.
    static func names(_ rows: [(String, String, String)]) -> AppleAdsNames {
        var names = AppleAdsNames()
        for (kind, id, name) in rows {
            guard let kind = AppleAdsNames.Kind(rawValue: kind) else { continue }
            names.byKind[kind, default: [:]][id] = name
        }
        return names
    }

    /// The names of one answer's campaign, ad group and keyword, each found by `lookup(kind, id)`.
    static func names(of answer: AppleAdsAnswer, lookup: (String, String) throws -> String?) throws -> AppleAdsNames {
        var names = AppleAdsNames()
        for (kind, id) in [(AppleAdsNames.Kind.campaign, answer.campaignID), (.adGroup, answer.adGroupID), (.keyword, answer.keywordID)] {
            guard let id, let name = try lookup(kind.rawValue, id) else { continue }
            names.byKind[kind, default: [:]][id] = name
        }
        return names
    }

    public func credentials(projectID: String) throws -> AppleAdsCredentials? {
        try database.read { connection in
            try connection.queryOne(Self.credentialsOfProject, projectID, map: Self.credentials)
        }
    }

    public func setCredentials(_ credentials: AppleAdsCredentials, projectID: String, at time: Timestamp) throws {
        try database.writeAndWait { connection in
            try connection.run(Self.upsertCredentials, values: Self.upsertValues(credentials, projectID: projectID, at: time))
        }
    }

    public func deleteCredentials(projectID: String) throws -> Bool {
        try database.writeAndWait { connection in
            try connection.run(Self.deleteCredentialsOfProject, projectID) > 0
        }
    }

    public func names(projectID: String) throws -> AppleAdsNames {
        try database.read { connection in
            Self.names(try connection.query(Self.namesOfProject, projectID, map: { ($0.string(0), $0.string(1), $0.string(2)) }))
        }
    }

    public func names(of answer: AppleAdsAnswer, projectID: String) throws -> AppleAdsNames {
        try database.read { connection in try Self.names(of: answer, projectID: projectID, connection) }
    }

    static func names(of answer: AppleAdsAnswer, projectID: String, _ connection: SQLiteConnection) throws -> AppleAdsNames {
        try names(of: answer) { kind, id in try connection.queryOne(nameByID, projectID, kind, id) { $0.string(0) } }
    }

    public func saveName(_ name: String, kind: AppleAdsNames.Kind, id: String, projectID: String, at time: Timestamp) throws {
        try database.writeAndWait { connection in
            try connection.run(Self.upsertName, projectID, kind.rawValue, id, name, time.milliseconds)
        }
    }
}
