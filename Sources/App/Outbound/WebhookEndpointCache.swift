import Foundation
import Store

/// Every project's webhook endpoints in memory: each install, event and payment asks which
/// endpoints want it, and the answer is nearly always "none". Loaded whole on first use (the
/// table is small) and dropped after every commit that changes it.
final class WebhookEndpointCache: @unchecked Sendable {
    // `byProject` and `generation` are only touched under `lock`.
    private let lock = NSLock()
    private var byProject: [String: [WebhookEndpoint]]?
    private var generation = 0
    private let load: @Sendable () throws -> [WebhookEndpoint]
    private let beforeBlocking: @Sendable () throws -> Void

    init(load: @escaping @Sendable () throws -> [WebhookEndpoint], beforeBlocking: @escaping @Sendable () throws -> Void) {
        self.load = load
        self.beforeBlocking = beforeBlocking
    }

    func endpoints(projectID: String) throws -> [WebhookEndpoint] {
        lock.lock()
        if let byProject {
            lock.unlock()
            return byProject[projectID] ?? []
        }
        let startedAt = generation
        lock.unlock()
        try beforeBlocking()
        let loaded = Dictionary(grouping: try load(), by: \.projectID)
        lock.lock()
        defer { lock.unlock() }
        if generation == startedAt { byProject = loaded }
        return loaded[projectID] ?? []
    }

    func invalidate() {
        lock.lock()
        byProject = nil
        generation += 1
        lock.unlock()
    }
}
