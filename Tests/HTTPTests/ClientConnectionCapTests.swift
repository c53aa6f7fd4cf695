import Dispatch
import Foundation
import TestSupport
import Testing

@testable import HTTP

/// One client cannot take every connection: it is held to `maxConnectionsPerClient`, and when the
/// server is full, idle connections of the client holding the most make room for others.
@Suite(.serialized) struct ClientConnectionCapTests {
    /// `count` health requests from 127.0.0.1, each on a new connection, each answered 200.
    private func healthIsAnswered(port: UInt16, count: Int) throws {
        for _ in 0..<count {
            let client = try RawClient(port: port, source: "127.0.0.1", receiveTimeout: 2)
            client.send(get("/health"))
            let response = try #require(client.readResponse(), "health got no answer")
            #expect(response.status == 200, "health answered \(response.status)")
        }
    }

    @Test func fiveThousandConnectionsFromOneAddressLeaveOthersServed() throws {
        let server = try TestServer(limits: TestServer.defaultLimits)
        var flood: [RawClient] = []
        for _ in 0..<5000 {
            guard let client = try? RawClient(port: server.port, source: "127.0.0.2", receiveTimeout: 2) else { continue }
            flood.append(client)
        }
        #expect(flood.count == 5000)
        // Everyone else is still served. (How fast is a benchmark's question, not a unit test's:
        // these machines are shared, and a latency bound here failed under the suite's own load.)
        try healthIsAnswered(port: server.port, count: 200)
        // The flood holds at most its share; past it, connections are told 503 with Retry-After.
        // + lingering rejections, + health clients closing
        #expect(server.server.openConnectionCount <= HTTPServerLimits().maxConnectionsPerClient + 512 + 8)
        // (Accepted in the order they connected: the 301st is past the cap of 256.)
        let answer = try #require(flood[300].readResponse())
        #expect(answer.status == 503)
        #expect(answer.header("Retry-After") == "1")
        #expect(answer.closes)
        #expect(flood[300].readUntilClosed(timeout: 3))
        // Past the bounded number of lingering rejections, connections are closed outright.
        #expect(flood[4999].readUntilClosed(timeout: 3))
        // The first ones are served normally.
        let served = flood[0]
        served.send(get("/health"))
        #expect(served.readResponse()?.status == 200)
    }

    @Test func whenTheServerIsFullTheBusiestClientsIdleConnectionsMakeRoom() throws {
        var limits = TestServer.defaultLimits
        limits.maxConnections = 32
        limits.maxConnectionsPerClient = 1000
        let server = try TestServer(limits: limits)
        var hog: [RawClient] = []
        for _ in 0..<32 { hog.append(try RawClient(port: server.port, source: "127.0.0.2", receiveTimeout: 2)) }
        _ = eventually(timeout: 5) { server.server.openConnectionCount >= 32 }
        #expect(server.server.openConnectionCount == 32)
        // A busy hog connection (a request still being answered) is never taken.
        hog[0].send(get("/slow/300"))
        usleep(50_000)  // about time: the slow request is under way (its handler takes 300 ms)
        for _ in 0..<5 {
            let other = try RawClient(port: server.port, source: "127.0.0.3", receiveTimeout: 2)
            other.send(get("/health"))
            #expect(other.readResponse()?.status == 200)
        }
        #expect(hog[0].readResponse()?.bodyText == "slept 300")
        let closed = hog.dropFirst().filter { $0.readUntilClosed(timeout: 0.05) }.count
        #expect(closed >= 1, "no idle hog connection was closed to make room")
    }
}
