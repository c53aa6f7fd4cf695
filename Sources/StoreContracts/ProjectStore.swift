public import Attribution

/// Projects, their API keys and token, and test-mode clocks.
public protocol ProjectStore: Sendable {
    func create(name: String, settings: ProjectSettings, testMode: Bool, token: String?, apiKey: String?) throws -> CreatedProject
    func list() throws -> [Project]
    func find(id: String) throws -> Project?
    func find(name: String) throws -> Project?
    func project(forToken token: String) throws -> Project?
    func project(forAPIKey key: String) throws -> Project?
    func update(_ project: Project) throws -> Project?
    func testClocks() throws -> [(projectID: String, now: Timestamp)]
    func saveClock(projectID: String, now: Timestamp) throws
    func setToken(projectID: String, token: String) throws
    /// Replaces the token; the one it replaces stays accepted until `previousValidUntil` (nil: at
    /// once refused). False when there is no such project.
    func rotateToken(projectID: String, token: String, previousValidUntil: Timestamp?) throws -> Bool
    /// The project whose rotated-out token this is, while it is still accepted at `time`.
    func project(forPreviousToken token: String, at time: Timestamp) throws -> Project?
    /// Deletes the project and everything stored for it; false when there was none.
    func delete(projectID: String) throws -> Bool
    /// A new key (random unless `key` is given); nil when the project does not exist.
    func issueAPIKey(projectID: String, key: String?) throws -> IssuedAPIKey?
    func hasAPIKey(projectID: String, key: String) throws -> Bool
    func revokeAPIKey(projectID: String, keyID: String) throws -> Bool
    func apiKeys(projectID: String) throws -> [APIKeyInfo]
}

extension ProjectStore {
    public func create(name: String, settings: ProjectSettings, testMode: Bool = false) throws -> CreatedProject {
        try create(name: name, settings: settings, testMode: testMode, token: nil, apiKey: nil)
    }

    public func issueAPIKey(projectID: String) throws -> IssuedAPIKey? { try issueAPIKey(projectID: projectID, key: nil) }
}

/// Linkrunner request-signing keys (their secrets are kept to verify HMACs).
public protocol SigningKeyStore: Sendable {
    func create(projectID: String, now: Timestamp) throws -> (keyID: String, secret: String)
    func secret(keyID: String, projectID: String) throws -> String?
    func revoke(keyID: String, projectID: String, now: Timestamp) throws -> Bool
}
