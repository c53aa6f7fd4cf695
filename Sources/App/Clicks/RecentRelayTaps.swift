import Attribution
import Synchronization

/// When each project's Private Relay taps of a region last came, so that an install whose region
/// had none within the relay window skips reading them (docs/traffic-quality.md, "Cost"). Seeded
/// from the database when the node starts, then told of every tap this node records: exact on a node
/// that records every click of its database (SQLite); a store shared with other nodes always reads.
final class RecentRelayTaps: Sendable {
    private let latest: Mutex<[Key: Int64]>
    /// False when the taps stored before this node started could not be read: then every install reads.
    private let known: Bool

    /// - Parameter stored: the taps stored before this node started (`ClickStore.latestRelayTaps`),
    ///   read once when the node starts (nil: they could not be read).
    init(stored: [(projectID: String, regionKey: String, at: Int64)]? = []) {
        known = stored != nil
        var latest: [Key: Int64] = [:]
        for tap in stored ?? [] {
            let key = Key(projectID: tap.projectID, regionKey: tap.regionKey)
            latest[key] = max(latest[key] ?? .min, tap.at)
        }
        self.latest = Mutex(latest)
    }

    struct Key: Hashable {
        let projectID: String
        let regionKey: String
    }

    func noted(_ click: Click) {
        guard let key = click.ipKey, NetworkKey.isRelay(key) else { return }
        let found = Key(projectID: click.projectID, regionKey: key)
        latest.withLock { $0[found] = max($0[found] ?? .min, click.createdAt.milliseconds) }
    }

    /// False only when no relay tap of the region came within `windowSeconds` before `time`.
    func mayHaveTaps(projectID: String, regionKey: String, before time: Timestamp, windowSeconds: Int64) -> Bool {
        guard known else { return true }
        let last = latest.withLock { $0[Key(projectID: projectID, regionKey: regionKey)] }
        guard let last else { return false }
        return last > time.milliseconds - windowSeconds * 1000
    }
}
