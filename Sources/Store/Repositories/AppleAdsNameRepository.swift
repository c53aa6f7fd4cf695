import Attribution
import SQLValues
import StoreContracts

/// Apple Ads credentials' and fetched names' SQL and mappings.
enum AppleAdsNameRepository {
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

    static func upsertValues(_ credentials: AppleAdsCredentials, projectID: String, at time: Timestamp) -> [SQLValue] {
        let values: [any SQLBindable] = [
            projectID, credentials.clientID, credentials.teamID, credentials.keyID, credentials.orgID,
            credentials.privateKey, time.milliseconds, time.milliseconds,
        ]
        return values.map(\.sqlValue)
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

    /// The names of one answer, read on the install transaction's connection.
    static func names(of answer: AppleAdsAnswer, projectID: String, _ connection: some StoreSession) throws -> AppleAdsNames {
        try names(of: answer) { kind, id in try connection.queryOne(nameByID, projectID, kind, id) { $0.string(0) } }
    }
}

/// Apple Ads credentials and fetched campaign names, one implementation for both backends.
struct AppleAdsNameRecords<Source: SessionSource>: AppleAdsNameStore {
    let source: Source

    func credentials(projectID: String) throws -> AppleAdsCredentials? {
        try source.read {
            try $0.query(AppleAdsNameRepository.credentialsOfProject, values: sqlValues(projectID), map: AppleAdsNameRepository.credentials).first
        }
    }

    func setCredentials(_ credentials: AppleAdsCredentials, projectID: String, at time: Timestamp) throws {
        try source.writeSession { session in
            try session.run(
                AppleAdsNameRepository.upsertCredentials, values: AppleAdsNameRepository.upsertValues(credentials, projectID: projectID, at: time))
        }
    }

    func deleteCredentials(projectID: String) throws -> Bool {
        try source.writeSession { try $0.run(AppleAdsNameRepository.deleteCredentialsOfProject, values: sqlValues(projectID)) > 0 }
    }

    func names(projectID: String) throws -> AppleAdsNames {
        try source.read { session in
            AppleAdsNameRepository.names(
                try session.query(AppleAdsNameRepository.namesOfProject, values: sqlValues(projectID)) {
                    ($0.string(0), $0.string(1), $0.string(2))
                })
        }
    }

    func names(of answer: AppleAdsAnswer, projectID: String) throws -> AppleAdsNames {
        try source.read { session in
            try AppleAdsNameRepository.names(of: answer) { kind, id in
                try session.query(AppleAdsNameRepository.nameByID, values: sqlValues(projectID, kind, id)) { $0.string(0) }.first
            }
        }
    }

    func saveName(_ name: String, kind: AppleAdsNames.Kind, id: String, projectID: String, at time: Timestamp) throws {
        try source.writeSession {
            try $0.run(AppleAdsNameRepository.upsertName, values: sqlValues(projectID, kind.rawValue, id, name, time.milliseconds))
        }
    }
}
