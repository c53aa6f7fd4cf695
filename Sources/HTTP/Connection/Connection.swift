import Synchronization

/// One accepted socket, served by one event loop for its life. It only moves bytes and carries out
/// what `ConnectionStateMachine` decides; all its mutable state is touched only on its loop's
/// thread, which is why it can be `@unchecked Sendable`.
final class Connection: EventLoopHandler, @unchecked Sendable {
    private let fd: Int32
    let peer: SocketAddress?
    /// Opened only to answer 503 because the server is full.
    let isRejection: Bool
    /// Set by the accepting thread when it picks this connection to close (`closeIfIdle`), so the
    /// same connection is not picked again for another admission before its close lands. Whether
    /// it is idle is known only on its loop: publishing that after every flush cost /health ~7%.
    let reapRequested = Atomic<Bool>(false)
    private let loop: EventLoop
    private let context: ConnectionContext
    private var machine: ConnectionStateMachine
    private let onClosed: @Sendable (Connection) -> Void

    /// What the loop watches for; changed only through `updateInterest`.
    private var interest = EventLoop.Interest(read: true, write: false)
    private var registered = false

    /// The TLS session on an HTTPS listener; bytes go through it instead of the socket directly.
    private let tls: TLSSession?
    private var output: [UInt8] = []
    private var outputOffset = 0

    /// Actions not yet carried out, and whether `perform` is draining them (see `perform`).
    private var actionQueue: [ConnectionStateMachine.Action] = []
    /// The batch being carried out while `actionQueue` collects the next (kept for its capacity).
    private var spareActionQueue: [ConnectionStateMachine.Action] = []
    private var performing = false
    private var readSuspended = false
    private var inputEnded = false
    private var closeWhenFlushed = false
    /// Writable is being waited for: the socket's send buffer was full, or a TLS handshake needs it.
    private var awaitingWritable = false
    private var lingerDeadline: UInt64?
    /// When a TLS handshake still under way is given up (`tlsHandshakeTimeout`).
    private let handshakeDeadline: UInt64
    private var tornDown = false

    init(
        fd: Int32, peer: SocketAddress?, context: ConnectionContext, loop: EventLoop,
        isRejection: Bool = false, onClosed: @escaping @Sendable (Connection) -> Void
    ) {
        self.fd = fd
        self.peer = peer
        self.isRejection = isRejection
        self.context = context
        self.onClosed = onClosed
        self.loop = loop
        let now = EventLoop.now()
        self.machine = ConnectionStateMachine(limits: context.limits, now: now)
        self.tls = context.tls.flatMap { TLSSession(context: $0, fd: fd) }
        self.handshakeDeadline = now + context.limits.tlsHandshakeTimeout.nanoseconds
    }

    /// Registers with the loop; `rejectWith` answers that one response and closes (the server is
    /// at its connection limit), without reading a request.
    func start(rejectWith rejection: HTTPResponse? = nil) {
        loop.execute { [self] in
            guard loop.register(fd, handler: self, interest: interest) else {
                Socket.close(fd)
                onClosed(self)
                return
            }
            registered = true
            if let rejection {
                // The server's own constant 503: its headers always serialize.
                let bytes =
                    ResponseSerializer.serialize(
                        rejection, dateLine: HTTPDateCache.shared.headerLine(),
                        omitBody: false, close: true, keepAliveHTTP10: false) ?? []
                perform([.write(bytes), .close])
            }
        }
    }

    func beginShutdown() {
        loop.execute { [self] in
            guard !tornDown else { return }
            perform(machine.shutdown(now: EventLoop.now()))
        }
    }

    func forceClose() {
        loop.execute { [self] in teardown() }
    }

    /// Closes the connection if it is idle between requests (checked on its loop), to make room
    /// for another client's connection.
    func closeIfIdle() {
        loop.execute { [self] in
            guard !tornDown, lingerDeadline == nil, output.isEmpty, machine.isIdle else {
                reapRequested.store(false, ordering: .relaxed)  // busy after all: it may be picked later
                return
            }
            teardown()
        }
    }

    // MARK: - Events from the loop

    func ready(_ events: EventLoop.Readiness) {
        if events.readable, !readSuspended, !inputEnded { readAvailable() }
        if events.writable, !tornDown { flushOutput() }
        // Reset by the peer, or shut both ways: no byte can move any more.
        if events.closed, !tornDown { teardown() }
    }

    func tick(now: UInt64) {
        guard !tornDown else { return }
        // No HTTP answer is possible before the handshake is done: the connection is just closed.
        if let tls, !tls.handshakeDone, now >= handshakeDeadline {
            teardown()
            return
        }
        if let deadline = lingerDeadline {
            if now >= deadline { teardown() }
            return
        }
        perform(machine.tick(now: now))
    }

    // MARK: - Reading

    private func readAvailable() {
        guard !tornDown else { return }
        // TLS decrypts whole records: OpenSSL may hold bytes the socket no longer signals, so a
        // TLS read continues until OpenSSL has nothing left.
        var rounds = 0
        while tls != nil, rounds < 64, !tornDown, !readSuspended {
            rounds += 1
            guard receiveOnce() else { return }
            if tls!.pending == 0 { break }
        }
        if tls == nil { _ = receiveOnce() }
    }

    /// One read; true when bytes were handled and reading may go on.
    private func receiveOnce() -> Bool {
        let readBuffer = loop.readBuffer
        let result = tls?.receive(into: readBuffer) ?? Socket.receive(fd, into: readBuffer)
        switch result {
        case .bytes(let count):
            if lingerDeadline != nil { return true }  // draining after our last response: discard
            let now = EventLoop.now()
            perform(machine.received(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), now: now))
            accountHeldBytes(now: now)
            return true
        case .endOfFile:
            inputEnded = true
            // epoll is level-triggered here: stop watching a socket that will stay readable at EOF.
            updateInterest()
            if lingerDeadline != nil {
                teardown()
            } else {
                perform(machine.inputEnded(now: EventLoop.now()))
            }
            return false
        case .wouldBlock:
            // A handshake blocked on a full send buffer goes on when the socket is writable.
            if tls?.handshakeWantsWrite == true { awaitWritable(true) }
            return false
        case .failed:
            teardown()
            return false
        }
    }

    /// Reading follows the machine's `isReadingPaused` while it serves requests; once lingering
    /// after the last response, the socket is read (and discarded) until the client closes.
    private func syncReading() {
        let suspend = lingerDeadline == nil && machine.isReadingPaused
        guard suspend != readSuspended else { return }
        readSuspended = suspend
        updateInterest()
    }

    private func awaitWritable(_ waiting: Bool) {
        guard awaitingWritable != waiting else { return }
        awaitingWritable = waiting
        updateInterest()
    }

    /// Tells the loop what to watch: reading unless paused or ended, writable while waiting for it.
    private func updateInterest() {
        let wanted = EventLoop.Interest(read: !readSuspended && !inputEnded, write: awaitingWritable)
        guard wanted != interest, !tornDown else { return }
        interest = wanted
        if registered { loop.update(fd, interest: wanted) }
    }

    // MARK: - Carrying out actions

    /// Carries out the machine's actions in the order it emitted them. An inline handler answers
    /// while its `.dispatch` is being carried out; the machine's actions for that answer go to the
    /// back of the queue instead of running inside the loop (which kept the stack flat through a
    /// burst of pipelined requests, and the writes in order). Reading is set from the machine's
    /// state once the queue is empty.
    private func perform(_ actions: [ConnectionStateMachine.Action]) {
        if performing {
            // Only a dispatch can nest (an inline handler answers inside it): a batch with one waits
            // its turn, so the stack stays flat through a burst. Any other batch goes now, unless
            // batches are already waiting (its writes must follow theirs).
            if actionQueue.isEmpty, !actions.contains(where: { if case .dispatch = $0 { true } else { false } }) {
                carryOut(actions)
            } else {
                actionQueue.append(contentsOf: actions)
            }
            return
        }
        performing = true
        carryOut(actions)
        // What handlers answering inline queued meanwhile, batch after batch, oldest first.
        while !actionQueue.isEmpty, !tornDown {
            swap(&actionQueue, &spareActionQueue)
            carryOut(spareActionQueue)
            spareActionQueue.removeAll(keepingCapacity: true)
        }
        actionQueue.removeAll(keepingCapacity: true)
        performing = false
        if !tornDown { syncReading() }
        flushOutput()
    }

    private func carryOut(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions {
            guard !tornDown else { return }
            switch action {
            case .dispatch(var request, let sequence):
                request.remoteAddress = peer
                request.executor = ResponseExecutor(loop: loop)
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
            case .refusedResponse(let problem):
                context.onRefusedResponse(problem)
            }
        }
    }

    private func dispatch(_ request: HTTPRequest, sequence: UInt64) {
        guard context.acquireRequestSlot() else {
            perform(machine.responseReady(context.overloaded, sequence: sequence, now: EventLoop.now()))
            return
        }
        let context = self.context
        let handoff = ResponseHandoff()
        context.responder.respond(to: request) { response in
            context.releaseRequestSlot()
            // Answered before `respond` returned (an inline handler): the caller picks it up
            // below, without a trip through the loop's task queue. Otherwise hand it to the loop.
            if handoff.completeInline(with: response) { return }
            // Completed from a task on our own loop (a handler that used `request.executor`).
            if self.loop.inLoop {
                guard !self.tornDown else { return }
                self.perform(self.machine.responseReady(response, sequence: sequence, now: EventLoop.now()))
                return
            }
            self.loop.execute {
                guard !self.tornDown else { return }
                self.perform(self.machine.responseReady(response, sequence: sequence, now: EventLoop.now()))
            }
        }
        if let response = handoff.finishCall() {
            perform(machine.responseReady(response, sequence: sequence, now: EventLoop.now()))
        }
    }

    // MARK: - Writing

    private func flushOutput() {
        guard !tornDown else { return }
        if let tls, !tls.handshakeDone {
            readAvailable()  // the handshake is driven from the read side
            if tls.handshakeWantsWrite || tornDown { return }
            if output.isEmpty { awaitWritable(false) }
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
                    awaitWritable(true)
                    return
                case .endOfFile, .failed:
                    teardown()
                    return
                }
            }
            output.removeAll(keepingCapacity: output.capacity <= 64 * 1024)
            outputOffset = 0
            awaitWritable(false)
            _ = machine.writesFlushed(now: EventLoop.now())
        }
        if closeWhenFlushed, lingerDeadline == nil {
            startLingering()
        }
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
        lingerDeadline = EventLoop.now() + context.limits.lingerTimeout.nanoseconds
        syncReading()
    }

    // MARK: - Teardown

    /// Request bytes this connection has reported to the server-wide budget.
    private var reportedHeldBytes = 0

    /// Tells the budget what the machine holds now, when that changed; lets go of the
    /// connections it names (this one among them, possibly).
    private func accountHeldBytes(now: UInt64) {
        let held = tornDown ? 0 : machine.heldBytes
        guard held != reportedHeldBytes else { return }
        reportedHeldBytes = held
        for connection in context.bodyBudget.update(self, holds: held, now: now) {
            if connection === self { releaseForMemory() } else { connection.loop.execute { connection.releaseForMemory() } }
        }
    }

    /// The budget dropped this connection's share: its request is refused and what it holds freed.
    /// Bytes that came in between the budget's decision and this call may have put a share back:
    /// it is cleared here too, so no share outlives what it counts.
    private func releaseForMemory() {
        guard !tornDown else { return }
        let now = EventLoop.now()
        perform(machine.refuseForMemory(now: now))
        reportedHeldBytes = 0
        _ = context.bodyBudget.update(self, holds: 0, now: now)
    }

    private func teardown() {
        guard !tornDown else { return }
        tornDown = true
        if reportedHeldBytes > 0 {
            reportedHeldBytes = 0
            _ = context.bodyBudget.update(self, holds: 0, now: 0)
        }
        output = []
        if registered { loop.deregister(fd) }
        Socket.close(fd)
        onClosed(self)
    }
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
