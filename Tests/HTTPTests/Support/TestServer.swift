import Dispatch
import Foundation
import Synchronization
import TestSupport

@testable import HTTP

/// A real server on 127.0.0.1 port 0 with routes that exercise the transport: echo, slow, status.
final class TestServer {
    let server: HTTPServer
    var port: UInt16 { server.port }

    init(
        host: String = "127.0.0.1", limits: HTTPServerLimits = TestServer.defaultLimits,
        onRefusedResponse: @escaping @Sendable (String) -> Void = { _ in }, configure: (inout RouterBuilder) -> Void = { _ in }
    ) throws {
        var router = RouterBuilder()
        router.reserve("api")
        router.get("/health") { _ in .json(bytes: Array(#"{"status":"ok"}"#.utf8)) }
        router.post("/echo") { request in
            var response = HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: request.body)
            response.headers.add("X-Method", request.method.rawValue)
            return response
        }
        // Answers after `ms` milliseconds without blocking a thread.
        router.on(
            .get, "/slow/:ms",
            .deferred { request, done in
                let ms = Int(request.pathParameters["ms"] ?? "0") ?? 0
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(ms)) {
                    done(.success(.text("slept \(ms)")))
                }
            })
        router.get("/peer") { request in .text(request.remoteAddress?.ipString ?? "none") }
        router.get("/api/items/:id") { request in .text("item \(request.pathParameters["id"]!)") }
        router.get("/:code") { request in .text("link \(request.pathParameters["code"]!)") }
        router.get("/:slug/:code") { request in .text("link \(request.pathParameters["slug"]!)/\(request.pathParameters["code"]!)") }
        configure(&router)
        server = HTTPServer(host: host, port: 0, limits: limits, onRefusedResponse: onRefusedResponse, responder: router.build())
        try server.start()
    }

    deinit { server.shutdownAndWait() }

    func client(timeout: Double = 5) throws -> RawClient { try RawClient(port: port, receiveTimeout: timeout) }

    static var defaultLimits: HTTPServerLimits {
        var limits = HTTPServerLimits()
        limits.maxBodyBytes = 64 * 1024
        limits.drainTimeout = .seconds(5)
        return limits
    }
}
