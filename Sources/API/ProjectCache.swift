import Attribution
import Foundation
import Store

/// Projects by API key and by token, in memory: SDK requests authenticate on every call, so the
/// two database reads behind a key are done once. Any change made through the admin API clears
/// it (this process is the only writer of projects and keys).
public final class ProjectCache: @unchecked Sendable {
    // `byKey` and `byToken` are only touched under `lock`; keyed by the secret's SHA-256.
    private let lock = NSLock()
    private var byKey: [[UInt8]: Project] = [:]
    private var byToken: [[UInt8]: Project] = [:]
    private let capacity = 10_000

    public init() {}

    func project(forAPIKey key: String, repository: ProjectRepository) throws -> Project? {
        try lookup(Secrets.sha256(key), in: \.byKey) { try repository.project(forAPIKey: key) }
    }

    func project(forToken token: String, repository: ProjectRepository) throws -> Project? {
        try lookup(Secrets.sha256(token), in: \.byToken) { try repository.project(forToken: token) }
    }

    private func lookup(_ hash: [UInt8], in table: ReferenceWritableKeyPath<ProjectCache, [[UInt8]: Project]>,
                        load: () throws -> Project?) throws -> Project? {
        lock.lock()
        if let project = self[keyPath: table][hash] {
            lock.unlock()
            return project
        }
        lock.unlock()
        // Misses are not cached: a wrong key must not fill memory, and a new key works at once.
        guard let project = try load() else { return nil }
        lock.lock()
        if self[keyPath: table].count >= capacity { self[keyPath: table].removeAll() }
        self[keyPath: table][hash] = project
        lock.unlock()
        return project
    }

    public func invalidateAll() {
        lock.lock()
        byKey.removeAll()
        byToken.removeAll()
        lock.unlock()
    }
}
