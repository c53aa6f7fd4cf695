import Synchronization

/// The transport that requests outside the outbox go out through (store lookups, spend pulls, the
/// ECB's rates): the outbox worker's, set when it is made. Until then there is none, and those
/// requests say that outbound requests are not running on this node.
final class LateTransport: Sendable {
    private let transport = Mutex<(any OutboundTransport)?>(nil)

    func set(_ transport: any OutboundTransport) { self.transport.withLock { $0 = transport } }

    var current: (any OutboundTransport)? { transport.withLock { $0 } }
}

/// Access tokens of outside APIs by key (a project, a client), each kept until a margin before it
/// expires.
final class AccessTokenCache: Sendable {
    private let tokens = Mutex<[String: (token: String, until: Int64)]>([:])
    /// A token is used until this many seconds before its expiry.
    static let marginSeconds: Int64 = 60

    /// The key's token while it holds at `now` (seconds since 1970).
    func token(_ key: String, now: Int64) -> String? {
        tokens.withLock { $0[key] }.flatMap { $0.until > now ? $0.token : nil }
    }

    /// Keeps `token`, which expires `lifetime` seconds after `now`.
    func keep(_ token: String, _ key: String, lifetime: Int64, now: Int64) {
        tokens.withLock { $0[key] = (token, now + max(0, lifetime - Self.marginSeconds)) }
    }
}
