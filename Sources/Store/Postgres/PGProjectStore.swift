public import Attribution
import Cryptography
import Foundation

/// Projects, their API keys and tokens on PostgreSQL: `ProjectRepository`'s behaviour, its row
/// mapping shared; secrets hashed before they reach SQL.
public struct PGProjectStore: ProjectStore {
    let pool: PGPool
    let clock: any Clock

    public init(pool: PGPool, clock: any Clock = SystemClock()) {
        self.pool = pool
        self.clock = clock
    }

    private static let select = "SELECT \(ProjectRepository.columns) FROM projects"

    public func create(name: String, settings: ProjectSettings, testMode: Bool, token: String?, apiKey: String?) throws -> CreatedProject {
        let token = token ?? Secrets.generate(prefix: "tok_")
        let key = apiKey ?? Secrets.generate(prefix: "ak_")
        let id = UUID().uuidString.lowercased()
        let keyID = UUID().uuidString.lowercased()
        let now = clock.now().milliseconds
        do {
            try pool.transaction { connection in
                try connection.run(
                    ProjectRepository.insertSQL,
                    values: ProjectRepository.insertValues(
                        id: id, name: name, token: token, settings: settings, testMode: testMode, now: now))
                try Self.insertKey(connection, id: keyID, projectID: id, key: key, now: now)
            }
        } catch let error as PGError where error.isUniqueViolation {
            throw StoreError.conflict(
                error.message.contains("projects_name_key")
                    ? "a project named '\(name)' already exists" : "that token or API key is already in use")
        }
        let project = Project(
            id: id, name: name, settings: settings, testMode: testMode,
            createdAt: Timestamp(milliseconds: now), updatedAt: Timestamp(milliseconds: now))
        return CreatedProject(project: project, token: token, apiKey: IssuedAPIKey(id: keyID, key: key, prefix: ProjectRepository.prefix(of: key)))
    }

    public func list() throws -> [Project] {
        try pool.read { try $0.query("\(Self.select) ORDER BY created_at, id", map: ProjectRepository.project) }
    }

    public func find(id: String) throws -> Project? {
        try pool.read { try $0.queryOne("\(Self.select) WHERE id = ?", id, map: ProjectRepository.project) }
    }

    public func find(name: String) throws -> Project? {
        try pool.read { try $0.queryOne("\(Self.select) WHERE name = ?", name, map: ProjectRepository.project) }
    }

    public func project(forToken token: String) throws -> Project? {
        let hash = Secrets.sha256(token)
        return try pool.read { connection in
            try connection.queryOne("SELECT \(ProjectRepository.columns), token_hash FROM projects WHERE token_hash = ?", hash) { row in
                Secrets.constantTimeEquals(row.blob("token_hash"), hash) ? ProjectRepository.project(row) : nil
            } ?? nil
        }
    }

    public func project(forAPIKey key: String) throws -> Project? {
        let hash = Secrets.sha256(key)
        let projectID = try pool.read { connection in
            try connection.queryOne("SELECT project_id, key_hash FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL", hash) { row in
                Secrets.constantTimeEquals(row.blob(1), hash) ? row.string(0) : nil
            } ?? nil
        }
        return try projectID.flatMap { try find(id: $0) }
    }

    public func update(_ project: Project) throws -> Project? {
        let now = clock.now().milliseconds
        do {
            let changed = try pool.transaction { connection in
                try connection.run(ProjectRepository.updateSQL, values: ProjectRepository.updateValues(project, now: now))
            }
            guard changed > 0 else { return nil }
        } catch let error as PGError where error.isUniqueViolation {
            throw StoreError.conflict("a project named '\(project.name)' already exists")
        }
        return try find(id: project.id)
    }

    public func testClocks() throws -> [(projectID: String, now: Timestamp)] {
        try pool.read { connection in
            try connection.query("SELECT id, clock_ms, created_at FROM projects WHERE test_mode") { row in
                (row.string(0), Timestamp(milliseconds: row.optionalInt(1) ?? row.int(2)))
            }
        }
    }

    /// Never goes back, even if two saves (from two nodes) cross.
    public func saveClock(projectID: String, now: Timestamp) throws {
        try pool.transaction { connection in
            try connection.run(
                "UPDATE projects SET clock_ms = greatest(coalesce(clock_ms, 0), ?) WHERE id = ? AND test_mode",
                now.milliseconds, projectID)
        }
    }

    public func setToken(projectID: String, token: String) throws {
        try pool.transaction { try $0.run("UPDATE projects SET token_hash = ? WHERE id = ?", Secrets.sha256(token), projectID) }
    }

    public func rotateToken(projectID: String, token: String, previousValidUntil: Timestamp?) throws -> Bool {
        try pool.transaction {
            try $0.run(ProjectRepository.rotateTokenSQL, previousValidUntil?.milliseconds ?? 0, Secrets.sha256(token), projectID) > 0
        }
    }

    public func project(forPreviousToken token: String, at time: Timestamp) throws -> Project? {
        let hash = Secrets.sha256(token)
        return try pool.read { connection in
            try connection.queryOne(ProjectRepository.previousTokenLookup, hash, time.milliseconds) { row in
                Secrets.constantTimeEquals(row.blob("previous_token_hash"), hash) ? ProjectRepository.project(row) : nil
            } ?? nil
        }
    }

    public func delete(projectID: String) throws -> Bool {
        try pool.transaction { try ProjectDeletion.run(projectID: projectID, $0) }
    }

    public func issueAPIKey(projectID: String, key: String?) throws -> IssuedAPIKey? {
        guard try find(id: projectID) != nil else { return nil }
        let key = key ?? Secrets.generate(prefix: "ak_")
        let id = UUID().uuidString.lowercased()
        let now = clock.now().milliseconds
        try pool.transaction { try Self.insertKey($0, id: id, projectID: projectID, key: key, now: now) }
        return IssuedAPIKey(id: id, key: key, prefix: ProjectRepository.prefix(of: key))
    }

    public func hasAPIKey(projectID: String, key: String) throws -> Bool {
        try pool.read { connection in
            try connection.queryOne(
                "SELECT 1 FROM api_keys WHERE project_id = ? AND key_hash = ? AND revoked_at IS NULL",
                projectID, Secrets.sha256(key)
            ) { _ in true } ?? false
        }
    }

    public func revokeAPIKey(projectID: String, keyID: String) throws -> Bool {
        let now = clock.now().milliseconds
        return try pool.transaction { connection in
            try connection.run(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND project_id = ? AND revoked_at IS NULL",
                now, keyID, projectID) > 0
        }
    }

    public func apiKeys(projectID: String) throws -> [APIKeyInfo] {
        try pool.read { connection in
            try connection.query(
                "SELECT id, prefix, created_at, revoked_at FROM api_keys WHERE project_id = ? ORDER BY created_at, id",
                projectID
            ) { row in
                APIKeyInfo(
                    id: row.string(0), prefix: row.string(1), createdAt: Timestamp(milliseconds: row.int(2)),
                    revokedAt: row.optionalInt(3).map { Timestamp(milliseconds: $0) })
            }
        }
    }

    private static func insertKey(_ connection: PGConnection, id: String, projectID: String, key: String, now: Int64) throws {
        try connection.run(
            "INSERT INTO api_keys (id, project_id, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)",
            id, projectID, Secrets.sha256(key), ProjectRepository.prefix(of: key), now)
    }
}
