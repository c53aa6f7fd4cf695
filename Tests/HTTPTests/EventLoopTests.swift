import Dispatch
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import HTTP

/// Records what a loop tells it, and signals each readiness report.
private final class RecordingHandler: EventLoopHandler, @unchecked Sendable {
    let reports = Mutex<[EventLoop.Readiness]>([])
    let ticks = Atomic<Int>(0)
    let reported = DispatchSemaphore(value: 0)
    var onReady: (EventLoop.Readiness) -> Void = { _ in }

    func ready(_ events: EventLoop.Readiness) {
        reports.withLock { $0.append(events) }
        onReady(events)
        reported.signal()
    }

    func tick(now: UInt64) { ticks.add(1, ordering: .relaxed) }
}

@Suite struct EventLoopTests {
    @Test func tasksFromOtherThreadsRunOnTheLoopInOrder() throws {
        let loop = try EventLoop(name: "test-loop", tickInterval: .seconds(1))
        defer { loop.stop() }
        let seen = Mutex<[Int]>([])
        let onLoop = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        #expect(!loop.inLoop)
        for index in 0..<100 {
            loop.execute {
                if loop.inLoop { onLoop.add(1, ordering: .relaxed) }
                seen.withLock { $0.append(index) }
                if index == 99 { done.signal() }
            }
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(seen.withLock { $0 } == Array(0..<100))
        #expect(onLoop.load(ordering: .relaxed) == 100)
    }

    @Test func aRegisteredSocketIsReportedReadableThenWritableAsItsInterestSays() throws {
        let loop = try EventLoop(name: "test-loop", tickInterval: .seconds(1))
        defer { loop.stop() }
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0)
        let (ours, theirs) = (fds[0], fds[1])
        defer { close(ours) }
        let handler = RecordingHandler()
        // Level-triggered: keep the byte unread and stop reading, or the report would repeat.
        handler.onReady = { events in
            if events.readable { loop.update(ours, interest: .init(read: false, write: false)) }
        }
        let registered = DispatchSemaphore(value: 0)
        loop.execute {
            #expect(loop.register(ours, handler: handler, interest: .init(read: true, write: false)))
            registered.signal()
        }
        #expect(registered.wait(timeout: .now() + 5) == .success)
        #expect(handler.reports.withLock { $0 }.isEmpty)  // nothing to read yet

        #expect(write(theirs, "x", 1) == 1)
        #expect(handler.reported.wait(timeout: .now() + 5) == .success)
        let first = try #require(handler.reports.withLock { $0.first })
        #expect(first.readable && !first.writable && !first.closed)

        handler.onReady = { _ in loop.update(ours, interest: .init(read: false, write: false)) }
        loop.execute { loop.update(ours, interest: .init(read: false, write: true)) }
        #expect(handler.reported.wait(timeout: .now() + 5) == .success)
        let second = try #require(handler.reports.withLock { $0.last })
        #expect(second.writable && !second.readable)

        // Once deregistered, a closed peer is not reported.
        let removed = DispatchSemaphore(value: 0)
        loop.execute {
            loop.deregister(ours)
            removed.signal()
        }
        #expect(removed.wait(timeout: .now() + 5) == .success)
        close(theirs)
        #expect(handler.reported.wait(timeout: .now() + 0.3) == .timedOut)
        #expect(handler.reports.withLock { $0.count } == 2)
    }

    @Test func registeredHandlersAreTickedAtTheInterval() throws {
        let loop = try EventLoop(name: "test-loop", tickInterval: .milliseconds(20))
        defer { loop.stop() }
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let (ours, theirs) = (fds[0], fds[1])
        defer {
            close(ours)
            close(theirs)
        }
        let handler = RecordingHandler()
        loop.execute { _ = loop.register(ours, handler: handler, interest: .init(read: true, write: false)) }
        // Generous bounds: ticks must come, repeatedly, without any I/O; exact timing is not tested.
        _ = eventually(timeout: 5) { handler.ticks.load(ordering: .relaxed) >= 3 }
        #expect(handler.ticks.load(ordering: .relaxed) >= 3)
    }

    @Test func stopRunsTheTasksAlreadyQueuedThenEndsTheThread() throws {
        let loop = try EventLoop(name: "test-loop", tickInterval: .seconds(1))
        let ran = DispatchSemaphore(value: 0)
        loop.execute { ran.signal() }
        loop.stop()
        #expect(ran.wait(timeout: .now() + 5) == .success)
    }

    @Test(arguments: [1, 3])
    func aServerWithAnyNumberOfLoopsServesManyConnections(loops: Int) throws {
        var limits = TestServer.defaultLimits
        limits.eventLoops = loops
        let server = try TestServer(limits: limits)
        var clients: [RawClient] = []
        for _ in 0..<12 { clients.append(try server.client()) }
        for (index, client) in clients.enumerated() {
            client.send("GET /item\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        for (index, client) in clients.enumerated() {
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            #expect(response.bodyText == "link item\(index)")
        }
    }
}
