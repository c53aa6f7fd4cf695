import Foundation
import TestSupport
import Testing

@testable import HTTP

/// Drives the state machine with a mock clock (nanoseconds) and records what it asks for.
private struct Harness {
    var machine: ConnectionStateMachine
    var now: UInt64 = 1_000_000_000
    var dispatched: [(UInt64, HTTPRequest)] = []
    var written = ""
    var closed = false
    var aborted = false
    var paused: Bool { machine.isReadingPaused }

    init(limits: HTTPServerLimits = HTTPServerLimits()) {
        machine = ConnectionStateMachine(limits: limits, now: now, dateLine: { Array("Date: X\r\n".utf8) })
    }

    mutating func apply(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions {
            switch action {
            case .dispatch(let request, let sequence): dispatched.append((sequence, request))
            case .write(let bytes): written += String(decoding: bytes, as: UTF8.self)
            case .close: closed = true
            case .abort: aborted = true
            case .refusedResponse: break
            }
        }
    }

    mutating func receive(_ text: String) { apply(machine.received(Array(text.utf8), now: now)) }
    mutating func respond(_ sequence: UInt64, _ body: String) {
        apply(machine.responseReady(.text(body), sequence: sequence, now: now))
    }
    mutating func advance(seconds: Double) {
        now += UInt64(seconds * 1_000_000_000)
        apply(machine.tick(now: now))
    }
    mutating func takeWritten() -> String {
        defer { written = "" }
        return written
    }
}

@Suite struct ConnectionStateMachineTests {
    @Test func pipelinedResponsesAreWrittenInRequestOrder() {
        var h = Harness()
        h.receive(get("/1") + get("/2") + get("/3"))
        #expect(h.dispatched.map(\.0) == [0, 1, 2])
        h.respond(2, "three")
        h.respond(1, "two")
        #expect(h.written.isEmpty)  // 0 is still owed
        h.respond(0, "one")
        let written = h.takeWritten()
        let one = written.range(of: "one")!.lowerBound
        let two = written.range(of: "two")!.lowerBound
        let three = written.range(of: "three")!.lowerBound
        #expect(one < two && two < three)
        #expect(!h.closed)
    }

    @Test func connectionCloseEndsAfterThatResponseAndIgnoresTheRest() {
        var h = Harness()
        h.receive(get("/1", "Connection: close\r\n") + get("/2"))
        #expect(h.dispatched.count == 1)
        h.respond(0, "bye")
        #expect(h.written.contains("Connection: close\r\n"))
        #expect(h.closed)
    }

    @Test func http10ClosesUnlessKeepAliveIsAsked() {
        var h = Harness()
        h.receive("GET / HTTP/1.0\r\n\r\n")
        h.respond(0, "x")
        #expect(h.closed && h.written.contains("Connection: close"))

        var k = Harness()
        k.receive("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        k.respond(0, "x")
        #expect(!k.closed && k.written.contains("Connection: keep-alive"))
    }

    @Test func headResponseKeepsContentLengthButNoBody() {
        var h = Harness()
        h.receive("HEAD / HTTP/1.1\r\nHost: h\r\n\r\n")
        h.respond(0, "twelve bytes")
        #expect(h.written.contains("Content-Length: 12\r\n"))
        #expect(!h.written.contains("twelve bytes"))
    }

    @Test func parseErrorAfterPipelinedRequestIsAnsweredInOrderThenCloses() {
        var h = Harness()
        h.receive(get("/ok") + "BAD LINE\r\n\r\n")
        #expect(h.dispatched.count == 1)
        #expect(h.written.isEmpty)
        h.respond(0, "fine")
        let written = h.takeWritten()
        #expect(written.range(of: "200 OK")!.lowerBound < written.range(of: "400 Bad Request")!.lowerBound)
        #expect(h.closed)
    }

    @Test func trickledHeadersAreCutOffByTheHeaderDeadline() {
        var limits = HTTPServerLimits()
        limits.headerReadTimeout = .seconds(2)
        var h = Harness(limits: limits)
        h.receive("GET / HTTP/1.1\r\n")
        for _ in 0..<3 {
            h.advance(seconds: 0.5)
            h.receive("X-Slow: 1\r\n")  // bytes keep coming, but the deadline does not move
        }
        #expect(!h.closed)
        h.advance(seconds: 0.6)
        #expect(h.written.hasPrefix("HTTP/1.1 408 Request Timeout"))
        #expect(h.closed)
    }

    @Test func aBodyThatStopsArrivingIsCutOffByTheBodyDeadline() {
        var limits = HTTPServerLimits()
        limits.bodyReadTimeout = .seconds(3)
        limits.headerReadTimeout = .seconds(1)
        var h = Harness(limits: limits)
        h.receive("POST /e HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc")
        h.advance(seconds: 2)  // past the header deadline, but the head is complete: no 408 yet
        #expect(!h.closed && h.written.isEmpty)
        h.receive("de")
        h.advance(seconds: 1.5)
        #expect(h.written.hasPrefix("HTTP/1.1 408 Request Timeout"))
        #expect(h.closed)
        #expect(h.dispatched.isEmpty)
    }

    @Test func idleConnectionClosesAfterIdleTimeout() {
        var limits = HTTPServerLimits()
        limits.idleTimeout = .seconds(5)
        var h = Harness(limits: limits)
        h.receive(get("/"))
        h.respond(0, "x")
        h.apply(h.machine.writesFlushed(now: h.now))
        h.advance(seconds: 4)
        #expect(!h.closed)
        h.advance(seconds: 1.5)
        #expect(h.closed)
    }

    @Test func slowHandlerIsNotTimedOut() {
        var limits = HTTPServerLimits()
        limits.idleTimeout = .seconds(1)
        limits.headerReadTimeout = .seconds(1)
        var h = Harness(limits: limits)
        h.receive(get("/slow"))
        h.advance(seconds: 30)
        #expect(!h.closed)
        h.respond(0, "done")
        #expect(h.written.contains("done"))
    }

    @Test func stalledWriterIsAborted() {
        var limits = HTTPServerLimits()
        limits.writeTimeout = .seconds(3)
        var h = Harness(limits: limits)
        h.receive(get("/"))
        h.respond(0, "x")
        h.advance(seconds: 3.5)  // never flushed: the client stopped reading
        #expect(h.aborted)
    }

    @Test func expectContinueIsSentBeforeTheBodyOnlyWhenItIsOurTurn() {
        var h = Harness()
        h.receive("POST /e HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        #expect(h.takeWritten() == "HTTP/1.1 100 Continue\r\n\r\n")
        h.receive("abc")
        #expect(h.dispatched.first?.1.body == Array("abc".utf8))

        var p = Harness()
        p.receive(get("/first") + "POST /e HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\n")
        #expect(p.written.isEmpty)  // the response to /first comes first
        p.respond(0, "first")
        let written = p.takeWritten()
        #expect(written.range(of: "first")!.lowerBound < written.range(of: "100 Continue")!.lowerBound)
    }

    @Test func unknownExpectationIs417() {
        var h = Harness()
        h.receive("POST /e HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nExpect: magic\r\n\r\n")
        #expect(h.written.hasPrefix("HTTP/1.1 417 "))
        #expect(h.closed)
    }

    @Test func tooLargeBodyIsAnsweredBeforeItArrives() {
        var limits = HTTPServerLimits()
        limits.maxBodyBytes = 10
        var h = Harness(limits: limits)
        h.receive("POST /e HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n")
        #expect(h.written.hasPrefix("HTTP/1.1 413 Content Too Large"))
        #expect(!h.written.contains("100 Continue"))
        #expect(h.closed)
    }

    @Test func readingPausesAtThePipelineLimitAndResumes() {
        var limits = HTTPServerLimits()
        limits.maxPipelinedRequests = 2
        var h = Harness(limits: limits)
        h.receive(get("/1") + get("/2") + get("/3") + get("/4"))
        #expect(h.dispatched.count == 2)
        #expect(h.paused)
        h.respond(0, "a")
        #expect(!h.paused || h.dispatched.count == 3)
        #expect(h.dispatched.count == 3)
        h.respond(1, "b")
        #expect(h.dispatched.count == 4)
    }

    @Test func shutdownFinishesInFlightThenCloses() {
        var h = Harness()
        h.receive(get("/slow"))
        h.apply(h.machine.shutdown(now: h.now))
        #expect(!h.closed)
        h.receive(get("/after"))  // not read once shutting down
        #expect(h.dispatched.count == 1)
        h.respond(0, "done")
        #expect(h.written.contains("Connection: close") && h.written.contains("done"))
        #expect(h.closed)

        var idle = Harness()
        idle.apply(idle.machine.shutdown(now: idle.now))
        #expect(idle.closed)
    }

    @Test func endOfInputAnswersWhatWasReadThenCloses() {
        var h = Harness()
        h.receive(get("/1"))
        h.apply(h.machine.inputEnded(now: h.now))
        #expect(!h.closed)
        h.respond(0, "x")
        #expect(h.closed)
    }
}
