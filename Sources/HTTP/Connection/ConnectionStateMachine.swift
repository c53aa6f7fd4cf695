/// The life of one HTTP/1.1 connection as a pure state machine: it takes events (bytes read, a
/// response ready, writes flushed, a timer tick, end of input, shutdown) and returns the actions
/// the I/O layer must carry out. It never touches a socket or reads a clock — `now` is passed in,
/// in monotonic nanoseconds — so every path is tested without sockets and with a mock clock.
///
/// Requests on one connection may be pipelined (RFC 9112 §9.3.2): they are dispatched as they are
/// parsed, possibly answered out of order by handlers, and written strictly in request order.
public struct ConnectionStateMachine {
    public enum Action {
        /// Hand the request to the application; answer with `responseReady(_:sequence:now:)`.
        case dispatch(HTTPRequest, sequence: UInt64)
        case write([UInt8])
        /// Close once everything written has been sent (half-close, then linger).
        case close
        /// Close now, dropping unsent bytes (the peer stopped reading).
        case abort
        /// A handler's response had a header that cannot be sent (`ResponseSerializer.headerProblem`);
        /// a 500 was written instead. For the operator's log.
        case refusedResponse(String)
    }

    private struct Pending {
        var isHead: Bool
        var closeAfter: Bool
        var keepAliveHTTP10: Bool
    }

    private let limits: HTTPServerLimits
    private let dateLine: () -> [UInt8]
    private var parser: HTTPRequestParser

    private var nextSequence: UInt64 = 0
    private var nextToWrite: UInt64 = 0
    /// Requests dispatched (or errors queued) whose responses are not yet written.
    private var pending: [UInt64: Pending] = [:]
    private var ready: [UInt64: HTTPResponse] = [:]

    /// False once no further request will be read: after `Connection: close`, a framing error,
    /// the end of the client's input, a timeout or shutdown.
    private var acceptingRequests = true
    private var readingPaused = false
    private var closed = false
    private var outputFlushed = true
    /// A request sent `Expect: 100-continue` while earlier responses were still owed.
    private var continueOwed = false

    private var headerDeadline: UInt64?
    private var bodyDeadline: UInt64?
    private var idleDeadline: UInt64?
    private var writeDeadline: UInt64?

    public init(limits: HTTPServerLimits, now: UInt64, dateLine: @escaping () -> [UInt8] = HTTPDateCache.shared.headerLine) {
        self.limits = limits
        self.dateLine = dateLine
        self.parser = HTTPRequestParser(limits: limits)
        self.idleDeadline = now + limits.idleTimeout.nanoseconds
    }

    public var isClosed: Bool { closed }

    /// Whether the socket should go unread for now: as many requests as `maxPipelinedRequests` are
    /// owed responses. A level, not a pair of pause/resume actions: the I/O layer reads it after
    /// carrying out every batch of actions, so no order of carrying them out (an inline handler
    /// answering re-entrantly while a burst's later actions are still queued) can leave the socket
    /// paused while the machine expects bytes. That order once stalled a connection after a burst
    /// of 16 pipelined requests until the idle timeout.
    public var isReadingPaused: Bool { readingPaused }

    /// Between requests, with nothing owed or unsent: closing now loses the client nothing
    /// (RFC 9112 §9.6 lets either side close an idle persistent connection).
    public var isIdle: Bool { !closed && parser.phase == .idle && parser.bufferedByteCount == 0 && pending.isEmpty && outputFlushed }

    /// Request bytes held in memory for requests not yet complete (the server-wide budget of
    /// `maxBufferedBodyBytes` counts these).
    public var heldBytes: Int { parser.heldByteCount }

    // MARK: - Events

    /// The server holds too many request bytes and this connection is the one to let go: its
    /// request is answered 503 with `Retry-After` (after responses still owed), what it holds is
    /// dropped, and the connection closes.
    public mutating func refuseForMemory(now: UInt64) -> [Action] {
        guard !closed, acceptingRequests else { return [] }
        parser.discardHeldBytes()
        var actions: [Action] = []
        queueError(
            HTTPParseError(.overloaded, "the server is holding too many request bodies; retry shortly"),
            retryAfter: limits.retryAfterSeconds, now: now, into: &actions)
        return actions
    }

    public mutating func received(_ bytes: UnsafeRawBufferPointer, now: UInt64) -> [Action] {
        // After the last request we will answer, further bytes are read only to be discarded.
        guard !closed, acceptingRequests else { return [] }
        parser.append(bytes)
        var actions: [Action] = []
        process(now: now, into: &actions)
        return actions
    }

    public mutating func received(_ bytes: [UInt8], now: UInt64) -> [Action] {
        bytes.withUnsafeBytes { received($0, now: now) }
    }

    public mutating func responseReady(_ response: HTTPResponse, sequence: UInt64, now: UInt64) -> [Action] {
        guard !closed, pending[sequence] != nil, ready[sequence] == nil else { return [] }
        ready[sequence] = response
        var actions: [Action] = []
        flush(now: now, into: &actions)
        updateDeadlines(now: now)
        return actions
    }

    public mutating func writesFlushed(now: UInt64) -> [Action] {
        outputFlushed = true
        writeDeadline = nil
        updateDeadlines(now: now)
        return []
    }

    /// The client closed its side (read returned 0). Responses still owed are written, then we close.
    public mutating func inputEnded(now: UInt64) -> [Action] { finishAfterOwedResponses() }

    /// Stop taking requests; answer those already read (the last with `Connection: close`).
    public mutating func shutdown(now: UInt64) -> [Action] { finishAfterOwedResponses() }

    private mutating func finishAfterOwedResponses() -> [Action] {
        guard !closed else { return [] }
        acceptingRequests = false
        if pending.isEmpty {
            closed = true
            return [.close]
        }
        return []
    }

    /// Checks deadlines; the I/O layer calls this periodically.
    public mutating func tick(now: UInt64) -> [Action] {
        guard !closed else { return [] }
        if let deadline = writeDeadline, now >= deadline {
            closed = true
            return [.abort]
        }
        var actions: [Action] = []
        if !readingPaused, acceptingRequests {
            if parser.phase == .head, let deadline = headerDeadline, now >= deadline {
                timeOut("header section not received within \(limits.headerReadTimeout)", now: now, into: &actions)
                return actions
            }
            if parser.phase == .body, let deadline = bodyDeadline, now >= deadline {
                timeOut("request body not received within \(limits.bodyReadTimeout)", now: now, into: &actions)
                return actions
            }
        }
        if let deadline = idleDeadline, now >= deadline {
            closed = true
            return [.close]
        }
        return actions
    }

    // MARK: - Reading requests

    private mutating func process(now: UInt64, into actions: inout [Action]) {
        while acceptingRequests, !closed {
            if pending.count >= limits.maxPipelinedRequests {
                readingPaused = true
                break
            }
            let output: HTTPRequestParser.Output?
            do {
                output = try parser.next()
            } catch {
                queueError(error, now: now, into: &actions)
                break
            }
            guard let output else { break }
            switch output {
            case .head(let head):
                if head.hasUnmetExpectation {
                    queueError(HTTPParseError(.expectationFailed, "only 'Expect: 100-continue' is supported"), now: now, into: &actions)
                    return
                }
                // RFC 9110 §10.1.1: send 100 only when we mean to read the body and the client has
                // not started sending it; never ahead of responses still owed on this connection.
                if head.expectsContinue, head.version == .http1_1, parser.phase == .body, parser.bufferedByteCount == 0 {
                    if pending.isEmpty {
                        actions.append(.write(ResponseSerializer.continueResponse))
                        outputFlushed = false
                    } else {
                        continueOwed = true
                    }
                }
            case .request(let request):
                let keepAlive = request.wantsKeepAlive
                let sequence = nextSequence
                nextSequence += 1
                pending[sequence] = Pending(
                    isHead: request.method == .head, closeAfter: !keepAlive,
                    keepAliveHTTP10: keepAlive && request.version == .http1_0)
                continueOwed = false
                headerDeadline = nil
                bodyDeadline = nil
                if !keepAlive { acceptingRequests = false }
                actions.append(.dispatch(request, sequence: sequence))
            }
        }
        updateDeadlines(now: now)
    }

    /// A framing error or timeout becomes the connection's last response, after those still owed
    /// (so pipelined requests already read are answered in order), and the connection then closes.
    private mutating func queueError(_ error: HTTPParseError, retryAfter: Int? = nil, now: UInt64, into actions: inout [Action]) {
        acceptingRequests = false
        let sequence = nextSequence
        nextSequence += 1
        pending[sequence] = Pending(isHead: false, closeAfter: true, keepAliveHTTP10: false)
        var response = ErrorBody.response(status: error.status, code: error.code, message: error.message, closesConnection: true)
        if let retryAfter { response.headers.add("Retry-After", String(retryAfter)) }
        ready[sequence] = response
        flush(now: now, into: &actions)
    }

    private mutating func timeOut(_ message: String, now: UInt64, into actions: inout [Action]) {
        queueError(HTTPParseError(.requestTimeout, message), now: now, into: &actions)
    }

    // MARK: - Writing responses

    private mutating func flush(now: UInt64, into actions: inout [Action]) {
        while let response = ready.removeValue(forKey: nextToWrite) {
            let request = pending.removeValue(forKey: nextToWrite)!
            nextToWrite += 1
            let close = request.closeAfter || response.closesConnection || (!acceptingRequests && pending.isEmpty)
            var serialized = ResponseSerializer.serialize(
                response, dateLine: dateLine(), omitBody: request.isHead,
                close: close, keepAliveHTTP10: request.keepAliveHTTP10 && !close)
            if serialized == nil {
                // A header value with CR/LF/NUL would split the response: a 500 goes out instead.
                actions.append(.refusedResponse(ResponseSerializer.headerProblem(response.headers) ?? "invalid header"))
                serialized = ResponseSerializer.serialize(
                    ResponseSerializer.refusedResponse, dateLine: dateLine(), omitBody: request.isHead,
                    close: close, keepAliveHTTP10: request.keepAliveHTTP10 && !close)
            }
            let bytes = serialized!
            actions.append(.write(bytes))
            outputFlushed = false
            if writeDeadline == nil { writeDeadline = now + limits.writeTimeout.nanoseconds }
            if close {
                closed = true
                actions.append(.close)
                return
            }
        }
        if continueOwed, pending.isEmpty, parser.phase == .body {
            continueOwed = false
            actions.append(.write(ResponseSerializer.continueResponse))
        }
        if readingPaused, acceptingRequests, pending.count < limits.maxPipelinedRequests {
            readingPaused = false
            // Deadlines stopped while we were not reading; they start again from now.
            headerDeadline = nil
            bodyDeadline = nil
            process(now: now, into: &actions)
        }
    }

    private mutating func updateDeadlines(now: UInt64) {
        switch parser.phase {
        case .idle:
            headerDeadline = nil
            bodyDeadline = nil
        case .head:
            if headerDeadline == nil { headerDeadline = now + limits.headerReadTimeout.nanoseconds }
        case .body:
            headerDeadline = nil
            if bodyDeadline == nil { bodyDeadline = now + limits.bodyReadTimeout.nanoseconds }
        }
        if !closed, parser.phase == .idle, pending.isEmpty, outputFlushed {
            if idleDeadline == nil { idleDeadline = now + limits.idleTimeout.nanoseconds }
        } else {
            idleDeadline = nil
        }
    }
}
