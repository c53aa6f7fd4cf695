public import Attribution
import Cryptography
public import StoreContracts

/// Projects, their credentials and signing keys; the lookups SDK requests authenticate with go
/// through the cache.
public struct ProjectService: Sendable {
    let store: any StoreBackend
    let cache: ProjectCache
    let clocks: ProjectClocks
    let clock: any Clock
    let beforeBlocking: @Sendable () throws -> Void

    public func create(
        name: String, settings: ProjectSettings, testMode: Bool = false,
        token: String? = nil, apiKey: String? = nil
    ) throws -> CreatedProject {
        try AppError.throwIfAny([Project.validateName(name)].compactMap { $0 } + settings.validate())
        let created = try store.projects.create(name: name, settings: settings, testMode: testMode, token: token, apiKey: apiKey)
        clocks.register(created.project)
        return created
    }

    public func list() throws -> [Project] { try store.projects.list() }

    public func find(id: String) throws -> Project? { try store.projects.find(id: id) }

    public func find(name: String) throws -> Project? { try store.projects.find(name: name) }

    /// The project, or `AppError.notFound`.
    public func existing(id: String) throws -> Project {
        guard let project = try find(id: id) else { throw AppError.notFound("no project \(id)") }
        return project
    }

    /// Saves a changed project after validating its name and settings.
    public func update(_ project: Project) throws -> Project {
        try AppError.throwIfAny([Project.validateName(project.name)].compactMap { $0 } + project.settings.validate())
        guard let updated = try store.projects.update(project) else { throw AppError.notFound("no project \(project.id)") }
        return updated
    }

    public func setToken(projectID: String, token: String) throws { try store.projects.setToken(projectID: projectID, token: token) }

    /// The most hours a rotated-out token may stay accepted.
    public static let maximumTokenGraceHours = 720

    /// A new token (shown only now), the one it replaces still accepted for `graceHours` (0: at
    /// once refused), so shipped apps keep reporting while an update reaches users.
    public func rotateToken(projectID: String, graceHours: Int) throws -> (token: String, previousValidUntil: Timestamp?) {
        guard (0...Self.maximumTokenGraceHours).contains(graceHours) else {
            throw AppError.invalidField("grace_hours", "must be from 0 to \(Self.maximumTokenGraceHours)")
        }
        let token = Secrets.generate(prefix: "tok_")
        let until = graceHours > 0 ? clock.now().adding(seconds: Int64(graceHours) * 3600) : nil
        guard try store.projects.rotateToken(projectID: projectID, token: token, previousValidUntil: until) else {
            throw AppError.notFound("no project \(projectID)")
        }
        return (token, until)
    }

    /// Deletes the project with everything stored for it: links, clicks, installs, events,
    /// payments, users, keys, webhooks and their deliveries, rollups. It cannot be undone.
    public func delete(projectID: String) throws {
        guard try store.projects.delete(projectID: projectID) else { throw AppError.notFound("no project \(projectID)") }
    }

    /// Issues `key`, or a new key in `format`.
    public func issueAPIKey(projectID: String, key: String? = nil, format: APIKeyFormat = .standard) throws -> IssuedAPIKey {
        guard let issued = try store.projects.issueAPIKey(projectID: projectID, key: key ?? format.generate()) else {
            throw AppError.notFound("no project \(projectID)")
        }
        // A WarpLink key means the app runs WarpLink's SDK, whose Android side reads the Play
        // referrer in its own shape (the project's `play_referrer` says so from now on).
        if case .warplink = format, var project = try find(id: projectID), project.settings.playReferrer != .warplink {
            project.settings.playReferrer = .warplink
            _ = try update(project)
        }
        return issued
    }

    public func hasAPIKey(projectID: String, key: String) throws -> Bool { try store.projects.hasAPIKey(projectID: projectID, key: key) }

    public func revokeAPIKey(projectID: String, keyID: String) throws {
        guard try store.projects.revokeAPIKey(projectID: projectID, keyID: keyID) else {
            throw AppError.notFound("project \(projectID) has no active API key \(keyID)")
        }
    }

    public func apiKeys(projectID: String) throws -> [APIKeyInfo] { try store.projects.apiKeys(projectID: projectID) }

    public func createSigningKey(projectID: String) throws -> (keyID: String, secret: String) {
        try store.signingKeys.create(projectID: projectID, now: clock.now())
    }

    public func revokeSigningKey(projectID: String, keyID: String) throws {
        guard try store.signingKeys.revoke(keyID: keyID, projectID: projectID, now: clock.now()) else {
            throw AppError.notFound("project \(projectID) has no active signing key \(keyID)")
        }
    }

    // MARK: Cached lookups (SDK requests)

    public func project(forAPIKey key: String) throws -> Project? {
        try cache.project(forAPIKey: key, repository: store.projects)
    }

    /// The project of a current token (cached), or of a rotated-out one still in its grace
    /// period (read each time, so it stops working the moment the period ends).
    public func project(forToken token: String) throws -> Project? {
        if let project = try cache.project(forToken: token, repository: store.projects) { return project }
        try beforeBlocking()
        return try store.projects.project(forPreviousToken: token, at: clock.now())
    }

    public func cachedProject(id: String) throws -> Project? {
        try cache.project(forID: id, repository: store.projects)
    }

    /// The project if a lookup already cached it: never reads the store (for answers whose work
    /// must not run twice, such as a click already queued).
    public func projectIfCached(id: String) -> Project? { cache.cachedProject(forID: id) }

    public func signingSecret(keyID: String, projectID: String) throws -> String? {
        try cache.signingSecret(keyID: keyID, projectID: projectID, repository: store.signingKeys)
    }

    /// The project an install belongs to (LinkForty events name the install only).
    public func owner(ofInstall installID: String) throws -> String? {
        try cache.owner(ofInstall: installID, repository: store.installs)
    }

    /// The project SDK writes without a credential belong to: the one named `defaultName`, else
    /// the only project there is; nil when neither tells.
    public func defaultProject(named defaultName: String?) throws -> Project? {
        try beforeBlocking()  // not cached
        if let defaultName, let named = try store.projects.find(name: defaultName) { return named }
        let projects = try store.projects.list()
        return projects.count == 1 ? projects[0] : nil
    }
}
