import Attribution
import SQLValues
import StoreContracts

/// Dashboard users' and sessions' SQL and row mappings.
enum DashboardRepository {
    static let userColumns = "u.id, u.project_id, u.email, u.role, u.created_at"

    static let insertUser = "INSERT INTO dashboard_users (id, project_id, email, password_hash, role, created_at) VALUES (?, ?, ?, ?, ?, ?)"
    static let usersOfProject = "SELECT \(userColumns) FROM dashboard_users u WHERE u.project_id = ? ORDER BY u.email"
    static let insertSession = "INSERT INTO dashboard_sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)"
    static let sweepSessions = "DELETE FROM dashboard_sessions WHERE expires_at < ?"
    static let liveSession = """
        SELECT s.csrf_token, s.expires_at, s.user_id, \(userColumns) FROM dashboard_sessions s
        LEFT JOIN dashboard_users u ON u.id = s.user_id
        WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > ?
        """
    static let revokeOne = "UPDATE dashboard_sessions SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL"
    static let revokeOfUser = "UPDATE dashboard_sessions SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL"

    static func user(_ row: some ColumnReader, from column: Int32 = 0) -> DashboardUser {
        DashboardUser(
            id: row.string(column), projectID: row.string(column + 1), email: row.string(column + 2),
            role: DashboardRole(rawValue: row.string(column + 3)) ?? .viewer, createdAt: Timestamp(milliseconds: row.int(column + 4)))
    }

    /// A `liveSession` row; nil for a session whose user is gone.
    static func session(_ row: some ColumnReader) -> DashboardSession? {
        let signedInAsUser = row.optionalString(2) != nil
        // A session whose user was deleted went with it (cascade); a NULL join here would be a
        // session of a user deleted while foreign keys were off: no access.
        if signedInAsUser && row.optionalString(3) == nil { return nil }
        return DashboardSession(
            user: signedInAsUser ? user(row, from: 3) : nil, csrfToken: row.string(0),
            expiresAt: Timestamp(milliseconds: row.int(1)))
    }
}

/// Dashboard users and sessions, one implementation for both backends. E-mails match in any case:
/// `lower()` on both sides (SQLite's column is also COLLATE NOCASE; PostgreSQL has a unique
/// index on `lower(email)`).
struct DashboardRecords<Source: SessionSource>: DashboardStore {
    let source: Source

    func createUser(_ user: DashboardUser, passwordHash: String) throws -> DashboardUser? {
        do {
            try source.writeSession { session in
                try session.run(
                    DashboardRepository.insertUser,
                    values: sqlValues(
                        user.id, user.projectID, user.email, passwordHash,
                        user.role.rawValue, user.createdAt.milliseconds))
            }
            return user
        } catch let error where isUniqueViolation(error) {
            return nil
        }
    }

    func users(projectID: String) throws -> [DashboardUser] {
        try source.read { try $0.query(DashboardRepository.usersOfProject, values: sqlValues(projectID)) { DashboardRepository.user($0) } }
    }

    func credentials(email: String) throws -> [(user: DashboardUser, passwordHash: String)] {
        try source.read { session in
            try session.query(
                """
                SELECT \(DashboardRepository.userColumns), u.password_hash FROM dashboard_users u WHERE lower(u.email) = lower(?)
                ORDER BY u.created_at
                """, values: sqlValues(email)
            ) { (DashboardRepository.user($0), $0.string(5)) }
        }
    }

    func deleteUser(id: String, projectID: String) throws -> Bool {
        try source.writeSession { try $0.run("DELETE FROM dashboard_users WHERE id = ? AND project_id = ?", values: sqlValues(id, projectID)) > 0 }
    }

    func createSession(tokenHash: [UInt8], userID: String?, csrfToken: String, at time: Timestamp, expiresAt: Timestamp) throws {
        try source.writeSession { session in
            try session.run(
                DashboardRepository.insertSession, values: sqlValues(tokenHash, userID, csrfToken, time.milliseconds, expiresAt.milliseconds))
            // Sign-ins leave expired sessions behind; each new one sweeps them.
            try session.run(DashboardRepository.sweepSessions, values: sqlValues(time.milliseconds))
        }
    }

    func session(tokenHash: [UInt8], at time: Timestamp) throws -> DashboardSession? {
        try source.read { session in
            try session.query(DashboardRepository.liveSession, values: sqlValues(tokenHash, time.milliseconds), map: DashboardRepository.session)
                .first ?? nil
        }
    }

    func revokeSession(tokenHash: [UInt8], at time: Timestamp) throws {
        try source.writeSession { try $0.run(DashboardRepository.revokeOne, values: sqlValues(time.milliseconds, tokenHash)) }
    }

    func revokeSessions(userID: String, at time: Timestamp) throws -> Int {
        try source.writeSession { try $0.run(DashboardRepository.revokeOfUser, values: sqlValues(time.milliseconds, userID)) }
    }

    func generatedAdminKeyHash() throws -> [UInt8]? {
        try source.read { try $0.query("SELECT key_hash FROM server_admin_key WHERE id = 1", values: []) { $0.blob(0) }.first }
    }

    func forgetGeneratedAdminKeyHash(_ keyHash: [UInt8]) throws {
        try source.writeSession { try $0.run("DELETE FROM server_admin_key WHERE id = 1 AND key_hash = ?", values: sqlValues(keyHash)) }
    }

    func keepGeneratedAdminKeyHash(_ keyHash: [UInt8], at time: Timestamp) throws -> [UInt8] {
        try source.writeSession { session in
            try session.run(
                "INSERT INTO server_admin_key (id, key_hash, created_at) VALUES (1, ?, ?) ON CONFLICT DO NOTHING",
                values: sqlValues(keyHash, time.milliseconds))
            return try session.query("SELECT key_hash FROM server_admin_key WHERE id = 1", values: []) { $0.blob(0) }.first ?? keyHash
        }
    }
}
