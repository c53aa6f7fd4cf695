@preconcurrency import Dispatch
import Synchronization

/// An HTTP/1.1 server on non-blocking POSIX sockets. One read source on the listening socket
/// accepts; each connection has its own serial queue and sources (`Connection`); handlers run on a
/// concurrent queue. Start it, then `shutdown` to drain.
public final class HTTPServer: Sendable {
    public let host: String
    public let requestedPort: UInt16
    public let limits: HTTPServerLimits

    private let context: ConnectionContext
    private let acceptQueue = DispatchQueue(label: "attributiond.accept")
    /// Connections' queues target this one, so the I/O of all connections shares a bounded pool.
    private let ioQueue = DispatchQueue(label: "attributiond.io", qos: .userInitiated, attributes: .concurrent)

    private struct State {
        var listener: (fd: Int32, source: any DispatchSourceRead)?
        var boundAddress: SocketAddress?
        var connections: [ObjectIdentifier: Connection] = [:]
        var rejecting = 0
        var draining = false
        var drainCompletions: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// - Parameter tls: serve HTTPS with this certificate and key (same limits and timeouts).
    public init(host: String = "0.0.0.0", port: UInt16 = 8080, limits: HTTPServerLimits = HTTPServerLimits(),
                tls: TLSContext? = nil, responder: any HTTPResponder) {
        self.host = host
        self.requestedPort = port
        self.limits = limits
        self.context = ConnectionContext(responder: responder, limits: limits, tls: tls)
    }

    /// The address actually bound (its port is the real one when 0 was asked for).
    public var boundAddress: SocketAddress? { state.withLock { $0.boundAddress } }
    public var port: UInt16 { boundAddress?.port ?? requestedPort }
    public var openConnectionCount: Int { state.withLock { $0.connections.count } }
    /// What answers this server's requests (to serve the same application on another listener).
    public var responder: any HTTPResponder { context.responder }

    public func start() throws {
        Socket.raiseOpenFileLimit()
        let (fd, address) = try Socket.listen(host: host, port: requestedPort, backlog: limits.listenBacklog)
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: acceptQueue)
        source.setEventHandler { [self] in acceptPending(fd) }
        source.setCancelHandler { Socket.close(fd) }
        state.withLock {
            $0.listener = (fd, source)
            $0.boundAddress = address
        }
        source.resume()
    }

    /// Stops accepting, lets every connection finish the requests it has read (each last response
    /// says `Connection: close`), and calls `completion` when all are closed or `drainTimeout` passed.
    public func shutdown(completion: @escaping @Sendable () -> Void = {}) {
        let (listener, connections, alreadyDone) = state.withLock { state -> ((any DispatchSourceRead)?, [Connection], Bool) in
            let listener = state.listener?.source
            state.listener = nil
            state.draining = true
            if state.connections.isEmpty { return (listener, [], true) }
            state.drainCompletions.append(completion)
            return (listener, Array(state.connections.values), false)
        }
        listener?.cancel()
        if alreadyDone {
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
        let admission = state.withLock { state -> Admission in
            if state.draining { return .drop }
            if state.connections.count - state.rejecting < limits.maxConnections { return .serve }
            // Rejections linger briefly too; cap them so a flood cannot pin unbounded memory.
            return state.rejecting < max(16, limits.maxConnections / 8) ? .reject : .drop
        }
        if admission == .drop {
            Socket.close(fd)
            return
        }
        let connection = Connection(fd: fd, peer: peer, context: context, target: ioQueue,
                                    isRejection: admission == .reject) { [weak self] closed in
            self?.connectionClosed(closed)
        }
        state.withLock { state in
            state.connections[ObjectIdentifier(connection)] = connection
            if admission == .reject { state.rejecting += 1 }
        }
        // Queued before the sources start, so a rejected connection never dispatches a request.
        if admission == .reject { connection.reject(with: context.overloaded) }
        connection.start()
    }

    private func connectionClosed(_ connection: Connection) {
        let completions = state.withLock { state -> [@Sendable () -> Void] in
            guard state.connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return [] }
            if connection.isRejection { state.rejecting -= 1 }
            guard state.draining, state.connections.isEmpty else { return [] }
            defer { state.drainCompletions = [] }
            return state.drainCompletions
        }
        for completion in completions { completion() }
    }

    private func pauseAccepting() {
        guard let source = state.withLock({ $0.listener?.source }) else { return }
        source.suspend()
        acceptQueue.asyncAfter(deadline: .now() + .milliseconds(100)) { source.resume() }
    }
}
