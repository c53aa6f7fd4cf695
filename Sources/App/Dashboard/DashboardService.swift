import Attribution
import Cryptography
import Foundation
public import StoreContracts

/// Dashboard sign-ins: users of a project with a password, and sessions that a cookie carries.
/// The cookie holds a random token; the store keeps only its SHA-256, so a copy of the database
/// cannot be used to sign in.
public struct DashboardService: Sendable {
    let store: any StoreBackend
    let clock: any Clock
    /// How long a sign-in lasts, whatever is done with it.
    public static let sessionSeconds: Int64 = 12 * 3600

    public func createUser(projectID: String, email: String, password: String, role: DashboardRole) throws -> DashboardUser {
        let email = email.trimmingCharacters(in: .whitespaces)
        var problems: [ValidationProblem] = []
        if !Self.looksLikeEmail(email) { problems.append(ValidationProblem("email", "must be an email address")) }
        if password.count < 10 || password.utf8.count > 1024 {
            problems.append(ValidationProblem("password", "must be 10 to 1024 characters"))
        }
        try AppError.throwIfAny(problems)
        let now = clock.now()
        let user = DashboardUser(
            id: "du_" + TimeOrderedID.secure(at: now).replacingOccurrences(of: "-", with: ""), projectID: projectID,
            email: email, role: role, createdAt: now)
        guard let created = try store.dashboard.createUser(user, passwordHash: PasswordHash.make(password)) else {
            throw AppError.invalidField("email", "project \(projectID) already has a user \(email)")
        }
        return created
    }

    public func users(projectID: String) throws -> [DashboardUser] { try store.dashboard.users(projectID: projectID) }

    public func deleteUser(id: String, projectID: String) throws {
        guard try store.dashboard.deleteUser(id: id, projectID: projectID) else {
            throw AppError.notFound("project \(projectID) has no dashboard user \(id)")
        }
    }

    /// The user whose email and password these are; nil otherwise. An unknown email costs the
    /// same hashing as a wrong password, so timing does not tell which emails exist.
    /// Every account of this email (one per project at most) that the password opens: one email
    /// may be a user of several projects, with one password or several.
    public func authenticate(email: String, password: String) throws -> [DashboardUser] {
        let candidates = try store.dashboard.credentials(email: email.trimmingCharacters(in: .whitespaces))
        guard !candidates.isEmpty else {
            _ = PasswordHash.verify(password, stored: Self.decoyHash)
            return []
        }
        return candidates.filter { PasswordHash.verify(password, stored: $0.passwordHash) }.map(\.user)
    }

    /// A new session for `user` (nil: the admin key); the token goes in the cookie, never stored.
    public func startSession(for user: DashboardUser?) throws -> (token: String, session: DashboardSession) {
        let token = Secrets.generate(prefix: "ds_")
        let now = clock.now()
        let expires = now.adding(seconds: Self.sessionSeconds)
        let csrf = Secrets.generate(prefix: "")
        try store.dashboard.createSession(tokenHash: Secrets.sha256(token), userID: user?.id, csrfToken: csrf, at: now, expiresAt: expires)
        return (token, DashboardSession(user: user, csrfToken: csrf, expiresAt: expires))
    }

    public func session(token: String) throws -> DashboardSession? {
        try store.dashboard.session(tokenHash: Secrets.sha256(token), at: clock.now())
    }

    public func endSession(token: String) throws {
        try store.dashboard.revokeSession(tokenHash: Secrets.sha256(token), at: clock.now())
    }

    /// Signs a user out everywhere (their password changed, or they left).
    public func revokeSessions(userID: String) throws -> Int {
        try store.dashboard.revokeSessions(userID: userID, at: clock.now())
    }

    private static let decoyHash = PasswordHash.make(Secrets.generate(prefix: ""))

    private static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && text.utf8.count <= 254
            && !text.contains(where: { $0.isWhitespace })
    }
}
