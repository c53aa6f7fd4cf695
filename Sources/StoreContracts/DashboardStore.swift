public import Attribution

/// Who may do what in the dashboard: an admin changes a project's links, keys and settings; a
/// viewer reads.
public enum DashboardRole: String, Sendable, CaseIterable {
    case admin, viewer
}

public struct DashboardUser: Sendable, Equatable {
    public let id: String
    public let projectID: String
    public let email: String
    public let role: DashboardRole
    public let createdAt: Timestamp

    public init(id: String, projectID: String, email: String, role: DashboardRole, createdAt: Timestamp) {
        self.id = id
        self.projectID = projectID
        self.email = email
        self.role = role
        self.createdAt = createdAt
    }
}

/// A live sign-in: `user` nil when it was made with the server's admin key (every project).
public struct DashboardSession: Sendable, Equatable {
    public let user: DashboardUser?
    public let csrfToken: String
    public let expiresAt: Timestamp

    public init(user: DashboardUser?, csrfToken: String, expiresAt: Timestamp) {
        self.user = user
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
    }
}

/// Dashboard users and sessions; sessions are found by the SHA-256 of their token.
public protocol DashboardStore: Sendable {
    /// nil when the project already has a user with this email (any case).
    func createUser(_ user: DashboardUser, passwordHash: String) throws -> DashboardUser?
    func users(projectID: String) throws -> [DashboardUser]
    /// Every project's users with this email, with their password hashes (sign-in).
    func credentials(email: String) throws -> [(user: DashboardUser, passwordHash: String)]
    /// Deletes the user and so their sessions; false when there was none.
    func deleteUser(id: String, projectID: String) throws -> Bool

    func createSession(tokenHash: [UInt8], userID: String?, csrfToken: String, at time: Timestamp, expiresAt: Timestamp) throws
    /// The session when it exists, is not revoked and has not expired at `time`.
    func session(tokenHash: [UInt8], at time: Timestamp) throws -> DashboardSession?
    func revokeSession(tokenHash: [UInt8], at time: Timestamp) throws
    /// Revokes every live session of the user; how many.
    func revokeSessions(userID: String, at time: Timestamp) throws -> Int

    /// The SHA-256 of the admin key the server made for itself, if it made one.
    func generatedAdminKeyHash() throws -> [UInt8]?
    /// Keeps `keyHash` as the server's own admin key unless one is kept already (another node
    /// made it first); the hash kept.
    func keepGeneratedAdminKeyHash(_ keyHash: [UInt8], at time: Timestamp) throws -> [UInt8]
    /// Forgets the kept key when it is `keyHash`: a key made by a start that failed before it
    /// could show it would otherwise lock the admin API for good.
    func forgetGeneratedAdminKeyHash(_ keyHash: [UInt8]) throws
}
