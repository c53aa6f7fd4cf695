import Attribution
import Dispatch
import Synchronization

/// The dashboard periods people look at by name ("7d", "90d"), so that their past can be summed
/// again in the background before the next view: after a quiet hour, after midnight (a new day is
/// a new period) or after a restart. A name not asked for in a day is dropped.
final class WatchedPeriods: Sendable {
    /// The period's bounds for the project at `now`; nil when it cannot be found any more.
    typealias Bounds = @Sendable (_ project: Project, _ now: Timestamp) -> (since: Timestamp, until: Timestamp)?

    struct Watch {
        let projectID: String
        let bounds: Bounds
        var wanted: UInt64
    }

    static let keptNanoseconds: UInt64 = 86_400_000_000_000
    /// At most this many, the least recently asked for dropped first: each costs a sum every few
    /// minutes in the background, and the stats cache holds `DashboardStatsCache.capacity` periods.
    static let capacity = 1_000

    private let watches = Mutex<[String: Watch]>([:])

    func watch(_ name: String, projectID: String, bounds: @escaping Bounds) {
        let now = DispatchTime.now().uptimeNanoseconds
        watches.withLock { watches in
            watches[projectID + "\u{0}" + name] = Watch(projectID: projectID, bounds: bounds, wanted: now)
            if watches.count > Self.capacity, let oldest = watches.min(by: { $0.value.wanted < $1.value.wanted })?.key {
                watches[oldest] = nil
            }
        }
    }

    /// The watches asked for within a day; older ones are dropped.
    func current() -> [Watch] {
        let now = DispatchTime.now().uptimeNanoseconds
        return watches.withLock { watches in
            watches = watches.filter { now - $0.value.wanted < Self.keptNanoseconds }
            return Array(watches.values)
        }
    }
}
