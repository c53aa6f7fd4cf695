public import Attribution

/// Dashboard users and sessions on PostgreSQL: `DashboardRepository`'s statements and row
/// mappings. E-mails match in any case through `lower(email)` (its unique index, postgres/0001),
/// as SQLite's COLLATE NOCASE makes them match there.
public struct PGDashboardStore: DashboardStore {
    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    public func createUser(_ user: DashboardUser, passwordHash: String) throws -> DashboardUser? {
        do {
            try pool.transaction { connection in
                try connection.run(DashboardRepository.insertUser, user.id, user.projectID, user.email, passwordHash, user.role.rawValue,
                                   user.createdAt.milliseconds)
            }
            return user
        } catch let error as PGError where error.isUniqueViolation {
            return nil
        }
    }

    public func users(projectID: String) throws -> [DashboardUser] {
        try pool.read { try $0.query(DashboardRepository.usersOfProject, projectID) { DashboardRepository.user($0) } }
    }

    public func credentials(email: String) throws -> [(user: DashboardUser, passwordHash: String)] {
        try pool.read { connection in
            try connection.query("""
                SELECT \(DashboardRepository.userColumns), u.password_hash FROM dashboard_users u WHERE lower(u.email) = lower(?)
                ORDER BY u.created_at
                """, email) { (DashboardRepository.user($0), $0.string(5)) }
        }
    }

    public func deleteUser(id: String, projectID: String) throws -> Bool {
        try pool.transaction { try $0.run("DELETE FROM dashboard_users WHERE id = ? AND project_id = ?", id, projectID) > 0 }
    }

    public func createSession(tokenHash: [UInt8], userID: String?, csrfToken: String, at time: Timestamp, expiresAt: Timestamp) throws {
        try pool.transaction { connection in
            try connection.run(DashboardRepository.insertSession, tokenHash, userID, csrfToken, time.milliseconds, expiresAt.milliseconds)
            try connection.run(DashboardRepository.sweepSessions, time.milliseconds)
        }
    }

    public func session(tokenHash: [UInt8], at time: Timestamp) throws -> DashboardSession? {
        try pool.read { try $0.queryOne(DashboardRepository.liveSession, tokenHash, time.milliseconds, map: DashboardRepository.session) ?? nil }
    }

    public func revokeSession(tokenHash: [UInt8], at time: Timestamp) throws {
        try pool.transaction { try $0.run(DashboardRepository.revokeOne, time.milliseconds, tokenHash) }
    }

    public func revokeSessions(userID: String, at time: Timestamp) throws -> Int {
        try pool.transaction { try $0.run(DashboardRepository.revokeOfUser, time.milliseconds, userID) }
    }
}
