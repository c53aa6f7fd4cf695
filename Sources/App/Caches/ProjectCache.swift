import Attribution
import Cryptography
import Foundation
import StoreContracts

/// Projects by API key and by token, in memory: SDK requests authenticate on every call, so the
/// two database reads behind a key are done once. The store empties it right after every commit
/// that changes projects, API keys or signing keys, before the writer's caller hears of it
/// (`StoreBackend.observeCommits`, set up by `AppServices`): whichever route or use case wrote.
///
/// A load runs outside the lock, so it can read a key just before a revocation commits and finish
/// just after the cache was cleared; caching that result kept a revoked key valid until the next
/// admin write. Every invalidation bumps `generation`, and a load that saw another generation
/// start is used for its own request only, never cached.
final class ProjectCache: @unchecked Sendable {
    // Every table and `generation` are only touched under `lock`; keys and tokens by their SHA-256.
    private let lock = NSLock()
    var byKey: [[UInt8]: Project] = [:]
    private var byToken: [[UInt8]: Project] = [:]
    private var byID: [String: Project] = [:]
    /// The project of each install an event named (installs never change project).
    private var installOwners: [String: String] = [:]
    /// Signing-key secrets by project and key id (Linkrunner signed requests look one up each).
    private var signingSecrets: [SigningKeyID: String] = [:]
    private var generation = 0

    private struct SigningKeyID: Hashable {
        let projectID: String
        let keyID: String
    }
    private let capacity = 10_000

    /// Called before a miss reads the store; throws where the caller must not block (an event
    /// loop: the API moves the request to the handler pool and runs it again).
    private let beforeBlocking: @Sendable () throws -> Void

    init(beforeBlocking: @escaping @Sendable () throws -> Void) {
        self.beforeBlocking = beforeBlocking
    }

    func project(forAPIKey key: String, repository: any ProjectStore) throws -> Project? {
        try cached(Secrets.sha256(key), in: \.byKey) { try repository.project(forAPIKey: key) }
    }

    func project(forToken token: String, repository: any ProjectStore) throws -> Project? {
        try cached(Secrets.sha256(token), in: \.byToken) { try repository.project(forToken: token) }
    }

    func signingSecret(keyID: String, projectID: String, repository: any SigningKeyStore) throws -> String? {
        try cached(SigningKeyID(projectID: projectID, keyID: keyID), in: \.signingSecrets) {
            try repository.secret(keyID: keyID, projectID: projectID)
        }
    }

    /// The project an install belongs to (LinkForty events name the install only).
    func owner(ofInstall installID: String, repository: any InstallStore) throws -> String? {
        try cached(installID, in: \.installOwners) { try repository.projectOf(installID: installID) }
    }

    func project(forID id: String, repository: any ProjectStore) throws -> Project? {
        try cached(id, in: \.byID) { try repository.find(id: id) }
    }

    /// The project when it is cached; nil otherwise, without reading the store.
    func cachedProject(forID id: String) -> Project? {
        lock.lock()
        defer { lock.unlock() }
        return byID[id]
    }

    func cached<Key: Hashable, Value>(
        _ hash: Key, in table: ReferenceWritableKeyPath<ProjectCache, [Key: Value]>,
        load: () throws -> Value?
    ) throws -> Value? {
        lock.lock()
        if let project = self[keyPath: table][hash] {
            lock.unlock()
            return project
        }
        let startedAt = generation
        lock.unlock()
        try beforeBlocking()
        // Misses are not cached: a wrong key must not fill memory, and a new key works at once.
        guard let value = try load() else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard generation == startedAt else { return value }
        if self[keyPath: table].count >= capacity { self[keyPath: table].removeAll() }
        self[keyPath: table][hash] = value
        return value
    }

    func invalidateAll() {
        lock.lock()
        byKey.removeAll()
        byToken.removeAll()
        byID.removeAll()
        signingSecrets.removeAll()
        installOwners.removeAll()
        generation += 1
        lock.unlock()
    }
}
