/// Every limit and timeout of the server in one place, with defaults suited to an attribution
/// endpoint (small JSON bodies, many short-lived mobile connections). Passed down to the parser,
/// the connection state machine and the listener; no other code holds these numbers.
public struct HTTPServerLimits: Sendable, Equatable {
    /// Connections open at once; beyond this new ones get `503` with `Retry-After` and are closed,
    /// unless idle connections of the busiest client can be closed to make room.
    public var maxConnections = 4096
    /// Connections open at once from one client (an IPv4 address, or an IPv6 /64, which one
    /// subscriber usually holds whole); beyond this `503` with `Retry-After`. Keeps one client from
    /// holding every connection the server has.
    public var maxConnectionsPerClient = 256
    /// Requests dispatched to handlers and not yet answered, server-wide; beyond this `503`.
    public var maxInFlightRequests = 8192
    /// Requests read ahead of their responses on one connection (pipelining); reading pauses beyond it.
    public var maxPipelinedRequests = 16
    /// The request line and header fields together (`431` beyond it).
    public var maxHeaderBytes = 16 * 1024
    /// The request-target (`414` beyond it).
    public var maxRequestTargetBytes = 8 * 1024
    public var maxHeaderFields = 100
    /// A request body, after chunked decoding (`413` beyond it, answered before reading it).
    public var maxBodyBytes = 1024 * 1024
    /// Request bytes held in memory at once by every connection together (bodies still arriving,
    /// and input not yet parsed). Beyond it the connection that has made no progress for longest
    /// is answered `503` with `Retry-After` and closed, until the rest fits: clients that announce
    /// large bodies and stall cannot hold the server's memory.
    public var maxBufferedBodyBytes = 256 * 1024 * 1024
    /// A chunk-size line including extensions, which we read and ignore.
    public var maxChunkLineBytes = 1024

    /// From a request's first byte to the end of its header section: cuts off slowloris clients that
    /// trickle headers (the deadline does not move when more bytes arrive).
    public var headerReadTimeout: Duration = .seconds(10)
    /// On HTTPS, from the connection's acceptance to the end of the TLS handshake. Until then no
    /// request byte can arrive, so `headerReadTimeout` has not started: without this a client that
    /// stalls mid-handshake would hold the connection for the whole `idleTimeout`.
    public var tlsHandshakeTimeout: Duration = .seconds(10)
    /// From the end of the header section to the end of the body.
    public var bodyReadTimeout: Duration = .seconds(30)
    /// How long an idle keep-alive connection is kept open.
    public var idleTimeout: Duration = .seconds(60)
    /// How long a response may wait for the client to read it before the connection is dropped.
    public var writeTimeout: Duration = .seconds(30)
    /// After an error response, how long to keep reading (and discarding) so the client sees the
    /// response instead of a TCP reset (a "lingering close").
    public var lingerTimeout: Duration = .seconds(2)
    /// On shutdown, how long in-flight requests may take before connections are cut.
    public var drainTimeout: Duration = .seconds(10)
    /// `Retry-After` seconds sent with 503 when a limit is reached.
    public var retryAfterSeconds = 1
    public var listenBacklog: Int32 = 1024
    /// Threads serving connections, each its own epoll loop; nil is one per available core.
    public var eventLoops: Int? = nil

    public init() {}

    /// How often each connection checks its deadlines: fine enough for the shortest timeout.
    var tickInterval: Duration {
        let shortest = [headerReadTimeout, tlsHandshakeTimeout, bodyReadTimeout, idleTimeout, writeTimeout, lingerTimeout].min()!
        return max(.milliseconds(10), min(.seconds(1), shortest / 4))
    }
}

extension Duration {
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        return UInt64(max(0, seconds)) &* 1_000_000_000 &+ UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
