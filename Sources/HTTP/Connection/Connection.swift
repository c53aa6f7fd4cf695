@preconcurrency import Dispatch
import Synchronization

/// One accepted socket, driven by Dispatch sources on its own serial queue. It only moves bytes and
/// carries out what `ConnectionStateMachine` decides; all its mutable state is confined to `queue`,
/// which is why it can be `@unchecked Sendable`.
final class Connection: @unchecked Sendable {
    private let fd: Int32
    let peer: SocketAddress?
    /// Opened only to answer 503 because the server is full.
    let isRejection: Bool
    private let queue: DispatchQueue
    private let context: ConnectionContext
    private var machine: ConnectionStateMachine
    private let onClosed: @Sendable (Connection) -> Void

    private let readSource: any DispatchSourceRead
    private var writeSource: (any DispatchSourceWrite)?
    private let timer: any DispatchSourceTimer
    /// Sources still registered on `fd`; it is closed when the last one's cancel handler has run.
    private var liveSources = 1

    private var readBuffer: UnsafeMutableRawBufferPointer
    /// The TLS session on an HTTPS listener; bytes go through it instead of the socket directly.
    private let tls: TLSSession?
    private var output: [UInt8] = []
    private var outputOffset = 0

    private var readSuspended = false
    private var inputEnded = false
    private var closeWhenFlushed = false
    private var lingerDeadline: UInt64?
    private var tornDown = false

    init(fd: Int32, peer: SocketAddress?, context: ConnectionContext, target: DispatchQueue,
         isRejection: Bool = false, onClosed: @escaping @Sendable (Connection) -> Void) {
        self.fd = fd
        self.peer = peer
        self.isRejection = isRejection
        self.context = context
        self.onClosed = onClosed
        self.queue = DispatchQueue(label: "attributiond.connection", target: target)
        self.machine = ConnectionStateMachine(limits: context.limits, now: Self.now())
        self.readSource = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        self.timer = DispatchSource.makeTimerSource(queue: queue)
        self.readBuffer = .allocate(byteCount: 16 * 1024, alignment: 8)
        self.tls = context.tls.flatMap { TLSSession(context: $0, fd: fd) }
    }

    deinit {
        readBuffer.deallocate()
    }

    func start() {
        readSource.setEventHandler { [self] in readAvailable() }
        readSource.setCancelHandler { [self] in sourceCancelled() }
        timer.setEventHandler { [self] in tick() }
        let interval = Int(context.limits.tickInterval.nanoseconds)
        timer.schedule(deadline: .now() + .nanoseconds(interval), repeating: .nanoseconds(interval),
                       leeway: .nanoseconds(interval / 4))
        readSource.resume()
        timer.resume()
    }

    /// Answers one response and closes: used when the server is at its connection limit.
    func reject(with response: HTTPResponse) {
        queue.async { [self] in
            let bytes = ResponseSerializer.serialize(response, dateLine: HTTPDateCache.shared.headerLine(),
                                                     omitBody: false, close: true, keepAliveHTTP10: false)
            perform([.write(bytes), .close])
        }
    }

    func beginShutdown() {
        queue.async { [self] in
            guard !tornDown else { return }
            perform(machine.shutdown(now: Self.now()))
        }
    }

    func forceClose() {
        queue.async { [self] in teardown() }
    }

    // MARK: - Reading

    private func readAvailable() {
        guard !tornDown else { return }
        // TLS decrypts whole records: OpenSSL may hold bytes the socket no longer signals, so a
        // TLS read continues until OpenSSL has nothing left.
        var rounds = 0
        while tls != nil, rounds < 64, !tornDown {
            rounds += 1
            guard receiveOnce() else { return }
            if tls!.pending == 0 { break }
        }
        if tls == nil { _ = receiveOnce() }
    }

    /// One read; true when bytes were handled and reading may go on.
    private func receiveOnce() -> Bool {
        let result = tls?.receive(into: readBuffer) ?? Socket.receive(fd, into: readBuffer)
        switch result {
        case .bytes(let count):
            if lingerDeadline != nil { return true }  // draining after our last response: discard
            perform(machine.received(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), now: Self.now()))
            return true
        case .endOfFile:
            inputEnded = true
            // The source is level-triggered: stop watching a socket that will stay readable at EOF.
            suspendReading()
            if lingerDeadline != nil {
                teardown()
            } else {
                perform(machine.inputEnded(now: Self.now()))
            }
            return false
        case .wouldBlock:
            // A handshake blocked on a full send buffer goes on when the socket is writable.
            if tls?.handshakeWantsWrite == true { armWriteSource() }
            return false
        case .failed:
            teardown()
            return false
        }
    }

    private func suspendReading() {
        guard !readSuspended else { return }
        readSuspended = true
        readSource.suspend()
    }

    private func resumeReading() {
        guard readSuspended, !inputEnded else { return }
        readSuspended = false
        readSource.resume()
    }

    // MARK: - Carrying out actions

    private func perform(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions {
            switch action {
            case .dispatch(var request, let sequence):
                request.remoteAddress = peer
                dispatch(request, sequence: sequence)
            case .write(let bytes):
                if output.isEmpty {
                    output = bytes
                } else {
                    output.append(contentsOf: bytes)
                }
            case .close:
                closeWhenFlushed = true
            case .abort:
                teardown()
                return
            case .pauseReading:
                suspendReading()
            case .resumeReading:
                resumeReading()
            }
        }
        flushOutput()
    }

    private func dispatch(_ request: HTTPRequest, sequence: UInt64) {
        guard context.acquireRequestSlot() else {
            perform(machine.responseReady(context.overloaded, sequence: sequence, now: Self.now()))
            return
        }
        let context = self.context
        let handoff = ResponseHandoff()
        context.responder.respond(to: request) { response in
            context.releaseRequestSlot()
            // Answered before `respond` returned (an inline handler): the caller picks it up
            // below, without a trip through the queue. Otherwise come back to the queue.
            if handoff.completeInline(with: response) { return }
            self.queue.async {
                guard !self.tornDown else { return }
                self.perform(self.machine.responseReady(response, sequence: sequence, now: Self.now()))
            }
        }
        if let response = handoff.finishCall() {
            perform(machine.responseReady(response, sequence: sequence, now: Self.now()))
        }
    }

    // MARK: - Writing

    private func flushOutput() {
        guard !tornDown else { return }
        if let tls, !tls.handshakeDone {
            readAvailable()  // the handshake is driven from the read side
            if tls.handshakeWantsWrite || tornDown { return }
            if output.isEmpty { disarmWriteSource() }
        }
        if outputOffset < output.count {
            while outputOffset < output.count {
                let result = output.withUnsafeBytes { bytes in
                    let pending = UnsafeRawBufferPointer(rebasing: bytes[outputOffset...])
                    return tls?.send(pending) ?? Socket.send(fd, pending)
                }
                switch result {
                case .bytes(let count):
                    outputOffset += count
                case .wouldBlock:
                    armWriteSource()
                    return
                case .endOfFile, .failed:
                    teardown()
                    return
                }
            }
            output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
            outputOffset = 0
            disarmWriteSource()
            _ = machine.writesFlushed(now: Self.now())
        }
        if closeWhenFlushed, lingerDeadline == nil {
            startLingering()
        }
    }

    private func armWriteSource() {
        guard writeSource == nil else { return }
        let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler { [self] in flushOutput() }
        source.setCancelHandler { [self] in sourceCancelled() }
        liveSources += 1
        writeSource = source
        source.resume()
    }

    private func disarmWriteSource() {
        guard let source = writeSource else { return }
        writeSource = nil
        source.cancel()
    }

    /// After our last response: half-close, then read and discard until the client closes or the
    /// linger time is up, so unread request bytes do not turn into a TCP reset that destroys the
    /// response before the client reads it.
    private func startLingering() {
        tls?.shutdown()
        Socket.shutdownWrite(fd)
        if inputEnded {
            teardown()
            return
        }
        lingerDeadline = Self.now() + context.limits.lingerTimeout.nanoseconds
        resumeReading()
    }

    // MARK: - Timers and teardown

    private func tick() {
        guard !tornDown else { return }
        if let deadline = lingerDeadline {
            if Self.now() >= deadline { teardown() }
            return
        }
        perform(machine.tick(now: Self.now()))
    }

    private func teardown() {
        guard !tornDown else { return }
        tornDown = true
        timer.cancel()
        disarmWriteSource()
        if readSuspended {
            readSuspended = false
            readSource.resume()  // a suspended source never runs its cancel handler
        }
        readSource.cancel()
        output = []
    }

    private func sourceCancelled() {
        liveSources -= 1
        if liveSources == 0 {
            Socket.close(fd)
            // Release the handlers' references to self, then tell the server.
            readSource.setEventHandler(handler: nil)
            timer.setEventHandler(handler: nil)
            onClosed(self)
        }
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}

/// Decides, without a lock, whether a response arrived while `respond` was still running (then
/// the caller writes it at once) or later (then the completion queues it).
private final class ResponseHandoff: @unchecked Sendable {
    private static let calling = 0, completedInline = 1, returned = 2
    private let state = Atomic<Int>(ResponseHandoff.calling)
    // Written before the state moves to `completedInline`, read only after seeing that state.
    private var response: HTTPResponse?

    /// From the completion: true when the caller will write `response`.
    func completeInline(with response: HTTPResponse) -> Bool {
        self.response = response
        return state.compareExchange(expected: Self.calling, desired: Self.completedInline, ordering: .acquiringAndReleasing).exchanged
    }

    /// From the caller once `respond` returned: the response if it came inline.
    func finishCall() -> HTTPResponse? {
        if state.compareExchange(expected: Self.calling, desired: Self.returned, ordering: .acquiringAndReleasing).exchanged { return nil }
        return response
    }
}
