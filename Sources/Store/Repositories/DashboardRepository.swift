public import Attribution

public struct DashboardRepository: DashboardStore {
    let database: Database

    public init(database: Database) { self.database = database }

    static let userColumns = "u.id, u.project_id, u.email, u.role, u.created_at"

    /// Statements shared with PostgreSQL (`PGDashboardStore`), whose connection numbers the `?`s.
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
        DashboardUser(id: row.string(column), projectID: row.string(column + 1), email: row.string(column + 2),
                      role: DashboardRole(rawValue: row.string(column + 3)) ?? .viewer, createdAt: Timestamp(milliseconds: row.int(column + 4)))
    }

    public func createUser(_ user: DashboardUser, passwordHash: String) throws -> DashboardUser? {
        do {
            try database.writeAndWait { connection in
                _ = try connection.run(Self.insertUser, user.id, user.projectID, user.email, passwordHash, user.role.rawValue, user.createdAt.milliseconds)
            }
            return user
        } catch let error as SQLiteError where error.isUniqueViolation {
            return nil
        }
    }

    public func users(projectID: String) throws -> [DashboardUser] {
        try database.read { connection in
            try connection.query(Self.usersOfProject, projectID) { Self.user($0) }
        }
    }

    public func credentials(email: String) throws -> [(user: DashboardUser, passwordHash: String)] {
        try database.read { connection in
            try connection.query("""
                SELECT \(Self.userColumns), u.password_hash FROM dashboard_users u WHERE u.email = ? ORDER BY u.created_at
                """, email) { (Self.user($0), $0.string(5)) }
        }
    }

    public func deleteUser(id: String, projectID: String) throws -> Bool {
        try database.writeAndWait { connection in
            try connection.run("DELETE FROM dashboard_users WHERE id = ? AND project_id = ?", id, projectID) > 0
        }
    }

    public func createSession(tokenHash: [UInt8], userID: String?, csrfToken: String, at time: Timestamp, expiresAt: Timestamp) throws {
        try database.writeAndWait { connection in
            _ = try connection.run(Self.insertSession, tokenHash, userID, csrfToken, time.milliseconds, expiresAt.milliseconds)
            // Sign-ins leave expired sessions behind; each new one sweeps them.
            _ = try connection.run(Self.sweepSessions, time.milliseconds)
        }
    }

    public func session(tokenHash: [UInt8], at time: Timestamp) throws -> DashboardSession? {
        try database.read { connection in
            try connection.queryOne(Self.liveSession, tokenHash, time.milliseconds, map: Self.session) ?? nil
        }
    }

    /// A `liveSession` row; nil for a session whose user is gone.
    static func session(_ row: some ColumnReader) -> DashboardSession? {
        let signedInAsUser = row.optionalString(2) != nil
        // A session whose user was deleted went with it (cascade); a NULL join here would be a
        // session of a user deleted while foreign keys were off: no access.
        if signedInAsUser && row.optionalString(3) == nil { return nil }
        return DashboardSession(user: signedInAsUser ? user(row, from: 3) : nil, csrfToken: row.string(0),
                                expiresAt: Timestamp(milliseconds: row.int(1)))
    }

    public func revokeSession(tokenHash: [UInt8], at time: Timestamp) throws {
        try database.writeAndWait { connection in
            _ = try connection.run(Self.revokeOne, time.milliseconds, tokenHash)
        }
    }

    public func revokeSessions(userID: String, at time: Timestamp) throws -> Int {
        try database.writeAndWait { connection in
            try connection.run(Self.revokeOfUser, time.milliseconds, userID)
        }
    }
}
