import Foundation

/// Every project's rows of a small table (webhook endpoints, postback templates) in memory: each
/// install, event and payment asks which of them want it, and the answer is nearly always
/// "none". Loaded whole on first use and dropped after every commit that changes the table.
final class ByProjectCache<Value: Sendable>: @unchecked Sendable {
    // `byProject` and `generation` are only touched under `lock`.
    private let lock = NSLock()
    private var byProject: [String: [Value]]?
    private var generation = 0
    private let load: @Sendable () throws -> [Value]
    private let projectID: @Sendable (Value) -> String
    private let beforeBlocking: @Sendable () throws -> Void

    init(
        load: @escaping @Sendable () throws -> [Value], projectID: @escaping @Sendable (Value) -> String,
        beforeBlocking: @escaping @Sendable () throws -> Void
    ) {
        self.load = load
        self.projectID = projectID
        self.beforeBlocking = beforeBlocking
    }

    func values(projectID wanted: String) throws -> [Value] {
        lock.lock()
        if let byProject {
            lock.unlock()
            return byProject[wanted] ?? []
        }
        let startedAt = generation
        lock.unlock()
        try beforeBlocking()
        let loaded = Dictionary(grouping: try load(), by: projectID)
        lock.lock()
        defer { lock.unlock() }
        if generation == startedAt { byProject = loaded }
        return loaded[wanted] ?? []
    }

    func invalidate() {
        lock.lock()
        byProject = nil
        generation += 1
        lock.unlock()
    }
}
