public import Attribution

/// Apple Ads credentials and fetched campaign names on PostgreSQL: `AppleAdsNameRepository`'s
/// statements and mappings.
public struct PGAppleAdsNameStore: AppleAdsNameStore {
    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    public func credentials(projectID: String) throws -> AppleAdsCredentials? {
        try pool.read { try $0.queryOne(AppleAdsNameRepository.credentialsOfProject, projectID, map: AppleAdsNameRepository.credentials) }
    }

    public func setCredentials(_ credentials: AppleAdsCredentials, projectID: String, at time: Timestamp) throws {
        try pool.transaction { connection in
            try connection.run(AppleAdsNameRepository.upsertCredentials,
                               values: AppleAdsNameRepository.upsertValues(credentials, projectID: projectID, at: time))
        }
    }

    public func deleteCredentials(projectID: String) throws -> Bool {
        try pool.transaction { try $0.run(AppleAdsNameRepository.deleteCredentialsOfProject, projectID) > 0 }
    }

    public func names(projectID: String) throws -> AppleAdsNames {
        try pool.read { connection in
            AppleAdsNameRepository.names(try connection.query(AppleAdsNameRepository.namesOfProject, projectID) {
                ($0.string(0), $0.string(1), $0.string(2))
            })
        }
    }

    public func names(of answer: AppleAdsAnswer, projectID: String) throws -> AppleAdsNames {
        try pool.read { connection in
            try AppleAdsNameRepository.names(of: answer) { kind, id in
                try connection.queryOne(AppleAdsNameRepository.nameByID, projectID, kind, id) { $0.string(0) }
            }
        }
    }

    public func saveName(_ name: String, kind: AppleAdsNames.Kind, id: String, projectID: String, at time: Timestamp) throws {
        try pool.transaction { try $0.run(AppleAdsNameRepository.upsertName, projectID, kind.rawValue, id, name, time.milliseconds) }
    }
}
