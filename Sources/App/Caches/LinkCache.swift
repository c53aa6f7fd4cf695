public import Attribution
import Foundation
public import Synchronization

/// Links by short code and domain, in memory: a click never reads the database to find its link. Entries
/// are dropped when their link, its template or its project changes; unknown codes are cached
/// too (as misses), and the whole cache is bounded.
public final class LinkCache: @unchecked Sendable {
    /// A link as clicks see it, and how many countable clicks it has had (for `max_clicks`).
    public final class Entry: Sendable {
        public let target: LinkTarget?
        public let clicks: Atomic<Int>

        init(target: LinkTarget?, clicks: Int) {
            self.target = target
            self.clicks = Atomic(clicks)
        }
    }

    // `entries` and `generation` are only touched under `lock`.
    private let lock = NSLock()
    /// By code, then by domain ("" for links with none): a code's entries go together when it changes.
    private var entries: [String: [String: Entry]] = [:]
    /// Bumped by every invalidation, so a load that raced one is not cached.
    private var generation = 0
    private let maxEntries: Int

    init(maxEntries: Int = 100_000) {
        self.maxEntries = maxEntries
    }

    /// The cached entry for `code` on `domain` ("": links with no domain), loading it with `load`
    /// on a miss.
    func entry(for code: String, domain: String = "", load: () throws -> (target: LinkTarget, clicks: Int)?) throws -> Entry {
        lock.lock()
        if let entry = entries[code]?[domain] {
            lock.unlock()
            return entry
        }
        let startedAt = generation
        lock.unlock()

        let loaded = try load()
        let entry = Entry(target: loaded?.target, clicks: loaded?.clicks ?? 0)
        lock.lock()
        defer { lock.unlock() }
        if generation == startedAt {
            if entries.count >= maxEntries { entries.removeAll(keepingCapacity: true) }
            if let cached = entries[code]?[domain] { return cached }
            entries[code, default: [:]][domain] = entry
            return entry
        }
        return entry
    }

    func invalidate(code: String) {
        lock.lock()
        entries[code] = nil
        generation += 1
        lock.unlock()
    }

    func invalidateAll() {
        lock.lock()
        entries.removeAll(keepingCapacity: true)
        generation += 1
        lock.unlock()
    }
}
