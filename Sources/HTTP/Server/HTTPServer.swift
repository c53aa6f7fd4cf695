@preconcurrency import Dispatch
import Synchronization

/// An HTTP/1.1 server on non-blocking POSIX sockets. One read source on the listening socket
/// accepts and deals connections round-robin to the event loops (one thread each, one per core by
/// default), which read, parse, route and write; handlers that may block run elsewhere and hand
/// their answer back to the loop. Start it, then `shutdown` to drain.
public final class HTTPServer: Sendable {
    public let host: String
    public let requestedPort: UInt16
    public let limits: HTTPServerLimits

    let context: ConnectionContext
    private let acceptQueue = DispatchQueue(label: "attributiond.accept")

    private struct State {
        var listener: (fd: Int32, source: any DispatchSourceRead)?
        /// Created by `start`, stopped once a shutdown has closed every connection.
        var loops: EventLoopGroup?
        var boundAddress: SocketAddress?
        var connections: [ObjectIdentifier: Connection] = [:]
        /// Served (not rejecting) connections by client, for `maxConnectionsPerClient` and reaping.
        var byClient: [SocketAddress.ClientKey: [ObjectIdentifier: Connection]] = [:]
        var rejecting = 0
        var draining = false
        var drainCompletions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// - Parameters:
    ///   - tls: serve HTTPS with this certificate and key (same limits and timeouts).
    ///   - onRefusedResponse: told when a handler's response had a header that cannot be sent
    ///     (a control character in a value, or a control, space or colon in a name) and a 500 went
    ///     out instead.
    public init(
        host: String = "0.0.0.0", port: UInt16 = 8080, limits: HTTPServerLimits = HTTPServerLimits(),
        tls: TLSContext? = nil, onRefusedResponse: @escaping @Sendable (String) -> Void = { _ in },
        responder: any HTTPResponder
    ) {
        self.host = host
        self.requestedPort = port
        self.limits = limits
        self.context = ConnectionContext(responder: responder, limits: limits, tls: tls, onRefusedResponse: onRefusedResponse)
    }

    /// The address actually bound (its port is the real one when 0 was asked for).
    public var boundAddress: SocketAddress? { state.withLock { $0.boundAddress } }
    public var port: UInt16 { boundAddress?.port ?? requestedPort }
    public var openConnectionCount: Int { state.withLock { $0.connections.count } }
    /// What answers this server's requests (to serve the same application on another listener).
    public var responder: any HTTPResponder { context.responder }

    public func start() throws {
        Socket.raiseOpenFileLimit()
        let loops = try EventLoopGroup(
            count: limits.eventLoops ?? EventLoopGroup.availableCores,
            tickInterval: limits.tickInterval)
        let fd: Int32
        let address: SocketAddress
        do {
            (fd, address) = try Socket.listen(host: host, port: requestedPort, backlog: limits.listenBacklog)
        } catch {
            loops.stop()
            throw error
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: acceptQueue)
        source.setEventHandler { [self] in acceptPending(fd) }
        source.setCancelHandler { Socket.close(fd) }
        state.withLock {
            $0.listener = (fd, source)
            $0.boundAddress = address
            $0.loops = loops
        }
        source.resume()
    }

    /// Stops accepting, lets every connection finish the requests it has read (each last response
    /// says `Connection: close`), and calls `completion` when all are closed or `drainTimeout` passed.
    public func shutdown(completion: @escaping @Sendable () -> Void = {}) {
        let (listener, connections, finishedLoops) = state.withLock { state -> ((any DispatchSourceRead)?, [Connection], EventLoopGroup?) in
            let listener = state.listener?.source
            state.listener = nil
            state.draining = true
            guard state.connections.isEmpty else {
                state.drainCompletions.append(completion)
                return (listener, Array(state.connections.values), nil)
            }
            defer { state.loops = nil }
            return (listener, [], state.loops)
        }
        listener?.cancel()
        if connections.isEmpty {
            finishedLoops?.stop()
            completion()
            return
        }
        for connection in connections { connection.beginShutdown() }
        let timeout = limits.drainTimeout.nanoseconds
        acceptQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(timeout))) { [self] in
            let stragglers = state.withLock { Array($0.connections.values) }
            for connection in stragglers { connection.forceClose() }
        }
    }

    /// Blocks until `shutdown` completes (for tests and the command line).
    public func shutdownAndWait() {
        let done = DispatchSemaphore(value: 0)
        shutdown { done.signal() }
        done.wait()
    }

    private func acceptPending(_ listener: Int32) {
        // Bounded, so one busy listener cannot starve the accept queue's other work.
        for _ in 0..<256 {
            switch Socket.accept(listener) {
            case .accepted(let fd, let peer):
                admit(fd: fd, peer: peer)
            case .wouldBlock:
                return
            case .failed:
                // Out of descriptors (EMFILE/ENFILE): the listener stays readable, so pause it
                // briefly instead of spinning on a failure that will repeat.
                pauseAccepting()
                return
            }
        }
    }

    private func admit(fd: Int32, peer: SocketAddress?) {
        enum Admission { case serve, reject, drop }
        let client = peer?.clientKey
        let (admission, loops, victims) = state.withLock { state -> (Admission, EventLoopGroup?, [Connection]) in
            guard let loops = state.loops, !state.draining else { return (.drop, nil, []) }
            // Rejections linger briefly too; cap them so a flood cannot pin unbounded memory.
            let rejectOrDrop: Admission = state.rejecting < max(16, limits.maxConnections / 8) ? .reject : .drop
            let own = client.flatMap { state.byClient[$0]?.count } ?? 0
            if own >= limits.maxConnectionsPerClient { return (rejectOrDrop, loops, []) }
            let served = state.connections.count - state.rejecting
            if served < limits.maxConnections { return (.serve, loops, []) }
            // Full: make room by closing idle connections of the client holding the most, if that
            // is someone else. Each admission past the cap asks for closes not already asked for,
            // so the count comes back under the cap; it never goes a sixteenth over.
            guard served < limits.maxConnections + max(1, limits.maxConnections / 16),
                let busiest = state.byClient.max(by: { $0.value.count < $1.value.count }),
                busiest.value.count > own + 1
            else { return (rejectOrDrop, loops, []) }
            // Whether a connection is idle is known on its loop only: `closeIfIdle` leaves a busy
            // one open (and pickable again), and the ceiling above bounds what that lets through.
            func victims(_ connections: [ObjectIdentifier: Connection]) -> [Connection] {
                Array(connections.values.lazy.filter { !$0.reapRequested.load(ordering: .relaxed) }.prefix(4))
            }
            var picked = victims(busiest.value)
            if picked.isEmpty {
                // Closes land on the loops after admissions: a whole accept batch can have asked
                // for every idle connection of the busiest client already. The next ones then pay.
                for (_, connections) in state.byClient.sorted(by: { $0.value.count > $1.value.count }) {
                    guard connections.count > own + 1 else { break }
                    picked = victims(connections)
                    if !picked.isEmpty { break }
                }
            }
            for victim in picked { victim.reapRequested.store(true, ordering: .relaxed) }
            return picked.isEmpty ? (rejectOrDrop, loops, []) : (.serve, loops, picked)
        }
        for victim in victims { victim.closeIfIdle() }
        guard let loops, admission != .drop else {
            Socket.close(fd)
            return
        }
        let connection = Connection(
            fd: fd, peer: peer, context: context, loop: loops.next(),
            isRejection: admission == .reject
        ) { [weak self] closed in
            self?.connectionClosed(closed)
        }
        let id = ObjectIdentifier(connection)
        state.withLock { state in
            state.connections[id] = connection
            if admission == .reject {
                state.rejecting += 1
            } else if let client {
                state.byClient[client, default: [:]][id] = connection
            }
        }
        connection.start(rejectWith: admission == .reject ? context.overloaded : nil)
    }

    private func connectionClosed(_ connection: Connection) {
        let (completions, finishedLoops) = state.withLock { state -> ([@Sendable () -> Void], EventLoopGroup?) in
            let id = ObjectIdentifier(connection)
            guard state.connections.removeValue(forKey: id) != nil else { return ([], nil) }
            if connection.isRejection {
                state.rejecting -= 1
            } else if let client = connection.peer?.clientKey {
                state.byClient[client]?[id] = nil
                if state.byClient[client]?.isEmpty == true { state.byClient[client] = nil }
            }
            guard state.draining, state.connections.isEmpty else { return ([], nil) }
            defer {
                state.drainCompletions = []
                state.loops = nil
            }
            return (state.drainCompletions, state.loops)
        }
        finishedLoops?.stop()
        for completion in completions { completion() }
    }

    private func pauseAccepting() {
        guard let source = state.withLock({ $0.listener?.source }) else { return }
        source.suspend()
        acceptQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { source.resume() }
    }
}
