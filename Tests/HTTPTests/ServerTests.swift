import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTP

@Suite struct ServerTests {
    @Test func keepAliveServesSeveralRequestsOnOneConnection() throws {
        let server = try TestServer()
        let client = try server.client()
        for index in 0..<3 {
            client.send(get("/item\(index)"))
            let response = try #require(client.readResponse())
            #expect(response.status == 200)
            #expect(response.bodyText == "link item\(index)")
            #expect(!response.closes)
            #expect(response.header("Date")?.hasSuffix(" GMT") == true)
        }
    }

    @Test func threePipelinedRequestsInOneWriteAreAnsweredInOrder() throws {
        let server = try TestServer()
        let client = try server.client()
        // The first is the slowest: its response must still come first.
        client.send(get("/slow/150") + get("/health") + "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\n\r\nping")
        let first = try #require(client.readResponse())
        let second = try #require(client.readResponse())
        let third = try #require(client.readResponse())
        #expect(first.bodyText == "slept 150")
        #expect(second.bodyText == #"{"status":"ok"}"#)
        #expect(third.bodyText == "ping")
    }

    @Test func chunkedBodySplitAtEveryByteBoundaryOverTheSocket() throws {
        let server = try TestServer()
        let client = try server.client()
        let request = Array(
            "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n6;note=x\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\n"
                .utf8)
        for split in 1..<request.count {
            client.send(Array(request[0..<split]))
            usleep(300)  // about time: the first part arrives on its own, a read of its own
            client.send(Array(request[split...]))
            let response = try #require(client.readResponse(), "split at \(split)")
            #expect(response.bodyText == "Wikipedia in \r\n\r\nchunks.", "split at \(split)")
        }
    }

    @Test(arguments: ParserTests.framingCases)
    func framingViolationGetsItsStatusAndTheConnectionCloses(_ row: ParserTests.FramingCase) throws {
        let server = try TestServer()
        let client = try server.client()
        client.send(row.request)
        let response = try #require(client.readResponse())
        #expect(response.status == row.status)
        #expect(response.closes)
        #expect(response.json?["error"] is String)
        #expect(client.readUntilClosed())
    }

    @Test func unknownRouteIs404AndWrongMethodIs405WithAllow() throws {
        let server = try TestServer()
        let client = try server.client()
        client.send(get("/api/nothing"))  // reserved prefix: never the link catch-all
        #expect(client.readResponse()?.status == 404)
        client.send("DELETE /health HTTP/1.1\r\nHost: t\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
        #expect(response.json?["error"] as? String == "method_not_allowed")
    }

    @Test func headIsServedByTheGetRouteWithoutABody() throws {
        let server = try TestServer()
        let client = try server.client()
        client.send("HEAD /health HTTP/1.1\r\nHost: t\r\n\r\n" + get("/health"))
        let head = try #require(client.readResponse(bodyless: true))
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "15")
        let getResponse = try #require(client.readResponse())
        #expect(getResponse.bodyText == #"{"status":"ok"}"#)  // proves HEAD sent no body bytes
    }

    @Test func routeParametersArePercentDecoded() throws {
        let server = try TestServer()
        let client = try server.client()
        client.send(get("/promo/a%20b"))
        #expect(client.readResponse()?.bodyText == "link promo/a b")
    }

    @Test func oversizedHeadersTargetAndBodyGetTheirStatuses() throws {
        let server = try TestServer()
        let headers = try server.client()
        headers.send("GET / HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "x", count: 17 * 1024))\r\n\r\n")
        #expect(headers.readResponse()?.status == 431)

        let target = try server.client()
        target.send(get("/" + String(repeating: "a", count: 8 * 1024 + 1)))
        #expect(target.readResponse()?.status == 414)

        // 413 arrives although the client never sends the body it announced.
        let body = try server.client()
        body.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 10000000\r\n\r\n")
        let response = try #require(body.readResponse())
        #expect(response.status == 413)
        #expect(response.closes)
    }

    @Test func expectContinueGets100ThenTheResponse() throws {
        let server = try TestServer()
        let client = try server.client()
        client.send("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
        let interim = try #require(client.readResponse(bodyless: true))
        #expect(interim.status == 100)
        client.send("hello")
        let final = try #require(client.readResponse())
        #expect(final.status == 200 && final.bodyText == "hello")
    }

    @Test func http10ClosesAfterTheResponse() throws {
        let server = try TestServer()
        let client = try server.client()
        client.send("GET /health HTTP/1.0\r\n\r\n")
        let response = try #require(client.readResponse())
        #expect(response.status == 200 && response.closes)
        #expect(client.readUntilClosed())
    }

    @Test func dualStackListenerAcceptsIPv4AndIPv6() throws {
        let server = try TestServer(host: "::")
        let v4 = try RawClient(port: server.port, host: "127.0.0.1")
        v4.send(get("/peer"))
        #expect(v4.readResponse()?.bodyText == "127.0.0.1")  // IPv4-mapped shown as IPv4
        let v6 = try RawClient(port: server.port, host: "::1")
        v6.send(get("/peer"))
        #expect(v6.readResponse()?.bodyText == "::1")
    }

    @Test func beyondMaxConnectionsNewOnesGet503WithRetryAfter() throws {
        var limits = TestServer.defaultLimits
        limits.maxConnections = 4
        let server = try TestServer(limits: limits)
        let held = try (0..<4).map { _ in try server.client() }
        for client in held {  // each is really admitted and served
            client.send(get("/health"))
            #expect(client.readResponse()?.status == 200)
        }
        let extra = try server.client()
        extra.send(get("/health"))
        let response = try #require(extra.readResponse())
        #expect(response.status == 503)
        #expect(response.header("Retry-After") == "1")
        #expect(response.closes)
    }

    @Test func tricklingClientIsCutOffByTheHeaderTimeout() throws {
        var limits = TestServer.defaultLimits
        limits.headerReadTimeout = .milliseconds(400)
        let server = try TestServer(limits: limits)
        let client = try server.client()
        let started = DispatchTime.now()
        client.send("GET / HTTP/1.1\r\n")
        // One header byte every 50 ms would take 5 s; the server must stop it well before.
        var response: TestResponse?
        for byte in "X-Slow: ".utf8 + Array(repeating: UInt8(ascii: "a"), count: 100) {
            client.send([byte])
            usleep(50_000)  // about time: the slow client this test is about
            if Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) > 1.5e9 { break }
        }
        response = client.readResponse()
        #expect(response?.status == 408)
        #expect(client.readUntilClosed())
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
        #expect(elapsed < 4.0)
    }

    @Test(arguments: [
        ("Location", "https://a.example/\r\nSet-Cookie: sid=x"), ("X-Bad", "a\nb"), ("X-Bad", "a\rb"),
        ("X-Bad", "a\u{0}b"), ("Bad Name", "v"), ("Bad:Name", "v"), ("", "v"),
    ])
    func aHeaderThatWouldSplitTheResponseBecomesA500(name: String, value: String) throws {
        let refused = RefusalLog()
        let server = try TestServer(onRefusedResponse: refused.append) { router in
            router.get("/bad") { _ in
                var response = HTTPResponse.text("never sent")
                response.headers.add(name, value)
                return response
            }
        }
        let client = try server.client()
        client.send(get("/bad") + get("/health"))
        let response = try #require(client.readResponse())
        #expect(response.status == 500)
        #expect(response.header("Set-Cookie") == nil)
        #expect(!response.bodyText.contains("never sent"))
        #expect(client.readResponse()?.status == 200)  // the connection stays in step
        #expect(refused.all.count == 1)
    }

    @Test func fiveHundredConcurrentConnectionsAreAllAnswered() throws {
        let server = try TestServer()
        // From ten addresses: one address alone is held to `maxConnectionsPerClient` (256).
        let clients = try (0..<500).map { index in try RawClient(port: server.port, source: "127.0.0.\(10 + index % 10)", receiveTimeout: 10) }
        for (index, client) in clients.enumerated() { client.send(get("/c\(index)")) }
        var answered = 0
        for (index, client) in clients.enumerated() where client.readResponse()?.bodyText == "link c\(index)" {
            answered += 1
        }
        #expect(answered == 500)
        #expect(server.server.openConnectionCount == 500)
    }

    @Test func gracefulShutdownCompletesAnInFlightSlowRequest() throws {
        let server = try TestServer()
        let client = try server.client()
        client.send(get("/slow/400"))
        usleep(100_000)  // about time: the slow request is being handled (the handler takes 400 ms)
        let done = DispatchSemaphore(value: 0)
        server.server.shutdown { done.signal() }
        let response = try #require(client.readResponse())
        #expect(response.status == 200 && response.bodyText == "slept 400")
        #expect(response.closes)
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(throws: ConnectError.self) { _ = try RawClient(port: server.port) }
    }

    @Test func idleKeepAliveConnectionIsClosed() throws {
        var limits = TestServer.defaultLimits
        limits.idleTimeout = .milliseconds(300)
        let server = try TestServer(limits: limits)
        let client = try server.client()
        client.send(get("/health"))
        #expect(client.readResponse()?.status == 200)
        #expect(client.readUntilClosed())
    }
}

final class RefusalLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    @Sendable func append(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
}
