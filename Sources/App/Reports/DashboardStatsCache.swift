import Store
import Dispatch
import Synchronization

/// Dashboard stats of closed periods for a minute, so that people reloading a 90-day overview do
/// not each add up its rollups again (a quarter of a second at a thousand links).
final class DashboardStatsCache: Sendable {
    struct Key: Hashable, Sendable {
        let projectID: String
        let since: Int64
        let until: Int64
        let currency: String
    }

    static let lifetimeNanoseconds: UInt64 = 60_000_000_000
    static let capacity = 512
    private let entries = Mutex<[Key: (expires: UInt64, stats: ProjectStats)]>([:])

    func stats(for key: Key) -> ProjectStats? {
        let now = DispatchTime.now().uptimeNanoseconds
        return entries.withLock { entries in
            guard let entry = entries[key], entry.expires > now else { return nil }
            return entry.stats
        }
    }

    func store(_ stats: ProjectStats, for key: Key) {
        let expires = DispatchTime.now().uptimeNanoseconds + Self.lifetimeNanoseconds
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll() }
            entries[key] = (expires, stats)
        }
    }
}
