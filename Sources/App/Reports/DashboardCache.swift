import Dispatch
import Glibc
import StoreContracts
import Synchronization

/// What the dashboard sums over closed periods (stats, breakdowns), so that people reloading a
/// 90-day overview do not each add up its rollups again (a fifth of a second at a thousand links). An entry is fresh for 30 s;
/// after that, for up to 10 minutes, it is still answered while one refresh runs in the background
/// (nobody waits for the sum but the first viewer of a period, and `DashboardWarmup` sums the
/// day ranges people watch before they are viewed). Closed periods change only when
/// an install is re-attributed, erased or its link deleted, so a view is at most ~30 s behind.
final class DashboardCache<Value: Sendable>: Sendable {
    struct Key: Hashable, Sendable {
        let projectID: String
        let since: Int64
        let until: Int64
        let currency: String
        /// What is summed when one cache holds several kinds (the breakdowns' dimensions).
        var what: String = ""
    }

    static var freshNanoseconds: UInt64 { 30_000_000_000 }
    static var usableNanoseconds: UInt64 { 600_000_000_000 }
    /// Above the watched periods' count (`WatchedPeriods.capacity`), so that warming them does not
    /// empty the cache it fills.
    static var capacity: Int { 2_048 }

    private struct Entry {
        var stored: UInt64
        var stats: Value
        var refreshing = false
    }

    private enum Found {
        case fresh(Value)
        case stale(Value, refresh: Bool)
        case none
    }

    private let entries = Mutex<[Key: Entry]>([:])
    /// Periods being summed for a first view: a second viewer waits for that sum instead of
    /// starting its own on the same two cores.
    private let firstSums = Mutex<Set<Key>>([])

    /// The cached stats of `key`, or `compute()`'s (stored); a stale entry starts one background
    /// refresh and is answered meanwhile.
    func stats(for key: Key, compute: @escaping @Sendable () throws -> Value) throws -> Value {
        let now = DispatchTime.now().uptimeNanoseconds
        let found: Found = entries.withLock { entries in
            guard var entry = entries[key], now - entry.stored < Self.usableNanoseconds else { return .none }
            if now - entry.stored < Self.freshNanoseconds { return .fresh(entry.stats) }
            let refresh = !entry.refreshing
            entry.refreshing = true
            entries[key] = entry
            return .stale(entry.stats, refresh: refresh)
        }
        switch found {
        case .fresh(let stats):
            return stats
        case .stale(let stats, let refresh):
            if refresh {
                DispatchQueue.global(qos: .utility).async { [self] in
                    if let fresh = try? compute() { store(fresh, for: key) } else { entries.withLock { $0[key]?.refreshing = false } }
                }
            }
            return stats
        case .none:
            if firstSums.withLock({ $0.insert(key).inserted }) {
                defer { _ = firstSums.withLock { $0.remove(key) } }
                let fresh = try compute()
                store(fresh, for: key)
                return fresh
            }
            let deadline = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
            while firstSums.withLock({ $0.contains(key) }), DispatchTime.now().uptimeNanoseconds < deadline { usleep(2_000) }
            if let stats = entries.withLock({ $0[key]?.stats }) { return stats }
            return try compute()  // the first sum failed or took too long: this viewer's own
        }
    }

    /// Sums `key` again, here and now, unless the cache holds it younger than `seconds` (or a
    /// first view is summing it). For the background warmer: a failed sum leaves the entry be.
    func refresh(_ key: Key, ifOlderThanSeconds seconds: Int, compute: () throws -> Value) {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = entries.withLock { entries in
            guard let entry = entries[key] else { return true }
            return !entry.refreshing && now - entry.stored >= UInt64(seconds) * 1_000_000_000
        }
        guard due, firstSums.withLock({ $0.insert(key).inserted }) else { return }
        defer { _ = firstSums.withLock { $0.remove(key) } }
        if let fresh = try? compute() { store(fresh, for: key) }
    }

    /// The entry for `key`, however old (for tests).
    func cached(_ key: Key) -> Value? { entries.withLock { $0[key]?.stats } }

    private func store(_ stats: Value, for key: Key) {
        let stored = DispatchTime.now().uptimeNanoseconds
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[key] == nil { entries.removeAll() }
            entries[key] = Entry(stored: stored, stats: stats)
        }
    }
}

typealias DashboardStatsCache = DashboardCache<ProjectStats>
typealias DashboardSeriesCache = DashboardCache<[StatsBucket]>
