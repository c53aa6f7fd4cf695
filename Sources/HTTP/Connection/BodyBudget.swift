import Synchronization

/// The request bytes every connection of a server holds in memory together, bounded by
/// `maxBufferedBodyBytes`. A connection reports its count only when it changes, which a request
/// that arrives whole in one read never does. Past the bound, the holders that have made no
/// progress for longest are let go first, the one reporting included: slow senders cannot keep
/// the memory that prompt ones need, and the total stays bounded whatever clients do.
final class BodyBudget: Sendable {
    /// A connection's share: what it holds, and when it last received more.
    private struct Share {
        var connection: Connection
        var held: Int
        var lastProgress: UInt64
    }

    private struct State {
        var total = 0
        var shares: [ObjectIdentifier: Share] = [:]
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) { self.limit = max(1, limit) }

    var total: Int { state.withLock { $0.total } }

    /// Records that `connection` holds `held` bytes now; the connections to let go (those whose
    /// shares were dropped from the total), oldest progress first, when the total passed the bound.
    func update(_ connection: Connection, holds held: Int, now: UInt64) -> [Connection] {
        state.withLock { state in
            let key = ObjectIdentifier(connection)
            let before = state.shares[key]?.held ?? 0
            state.total += held - before
            if held == 0 {
                state.shares.removeValue(forKey: key)
                return []
            }
            state.shares[key] = Share(
                connection: connection, held: held,
                lastProgress: held > before ? now : state.shares[key]?.lastProgress ?? now)
            guard held > before, state.total > limit else { return [] }
            var released: [Connection] = []
            let bySlowest = state.shares.values.sorted { $0.lastProgress < $1.lastProgress }
            for share in bySlowest where state.total > limit {
                state.total -= share.held
                state.shares.removeValue(forKey: ObjectIdentifier(share.connection))
                released.append(share.connection)
            }
            return released
        }
    }
}
