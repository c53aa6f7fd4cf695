import Dispatch
import HTTP
import Lifecycle
import Synchronization
import TestSupport
import Testing

/// Start in order, stop in reverse, a failed start undoes the ones before it, and the HTTP
/// server stops as a service by draining.
@Suite struct ServiceGroupTests {
    final class Recorder: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    struct Refused: Error {}

    func part(_ name: String, _ recorder: Recorder, failing: Bool = false) -> ClosureService {
        ClosureService(
            name,
            start: {
                if failing { throw Refused() }
                recorder.add("start \(name)")
            }, stop: { _ in recorder.add("stop \(name)") })
    }

    @Test func servicesStartInOrderAndStopInReverseOnce() throws {
        let recorder = Recorder()
        let group = ServiceGroup(["store", "outbox", "listeners"].map { part($0, recorder) })
        try group.start()
        group.stop(within: .seconds(1))
        group.stop(within: .seconds(1))
        #expect(recorder.all == ["start store", "start outbox", "start listeners", "stop listeners", "stop outbox", "stop store"])
    }

    @Test func aServiceThatCannotStartStopsTheOnesBeforeIt() {
        let recorder = Recorder()
        let events = Recorder()
        let group = ServiceGroup([
            part("store", recorder), part("outbox", recorder), part("listeners", recorder, failing: true),
            part("never", recorder),
        ]) { event in
            if case .stopped(let name, _) = event { events.add(name) }
        }
        #expect(throws: Refused.self) { try group.start() }
        #expect(recorder.all == ["start store", "start outbox", "stop outbox", "stop store"])
        #expect(events.all == ["outbox", "store"])
    }

    @Test func concurrentServicesStopSideBySideByOneDeadline() throws {
        // Each stop waits for the other to have begun: one after the other, the first would
        // give up at its 10 s limit and say so.
        let recorder = Recorder()
        let arrived = Mutex(0)
        let both = DispatchSemaphore(value: 0)
        let parts = (0..<2).map { index in
            ClosureService(
                "part \(index)",
                stop: { _ in
                    if arrived.withLock({ count in
                        count += 1
                        return count
                    }) == 2 {
                        both.signal()
                        both.signal()
                    }
                    let together = both.wait(timeout: .now() + .seconds(10)) == .success
                    recorder.add(together ? "together" : "alone")
                })
        }
        let pair = ConcurrentServices("pair", parts)
        try pair.start()
        pair.stop(by: .now() + .seconds(20))
        #expect(recorder.all == ["together", "together"])
    }

    @Test func anHTTPServerStopsAsAServiceAndRefusesNewConnections() throws {
        let server = HTTPServer(host: "127.0.0.1", port: 0, responder: StaticResponder())
        let group = ServiceGroup([server])
        try group.start()
        let port = server.port
        let client = try RawClient(port: port)
        client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        group.stop(within: .seconds(5))
        #expect(client.readUntilClosed(timeout: 2), "the kept-alive connection was closed by the drain")
        #expect(throws: (any Error).self) { _ = try RawClient(port: port) }
    }
}

private struct StaticResponder: HTTPResponder {
    func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void) {
        completion(HTTPResponse(status: .ok, body: Array("ok".utf8)))
    }
}
