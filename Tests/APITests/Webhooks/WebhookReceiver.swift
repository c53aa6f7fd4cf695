import Dispatch
import Foundation
import HTTP
import TestSupport

/// A webhook receiver on 127.0.0.1: our own HTTP server answering `POST /hook` with the statuses
/// it is told to (then 200), recording every request it got.
final class WebhookReceiver: @unchecked Sendable {
    struct Received: Sendable {
        let method: String
        /// Path and query as sent.
        let target: String
        let headers: [String: String]
        let body: [UInt8]
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    private let lock = NSLock()
    private var received: [Received] = []
    /// Seconds every answer waits (after the request was recorded): a slow receiver.
    private var stall = 0.0
    func stall(_ seconds: Double) { lock.withLock { stall = seconds } }
    private var script: [(status: HTTPStatus, headers: HTTPHeaders)]
    private var server: HTTPServer!
    private let scheme: String
    var url: String { "\(scheme)://127.0.0.1:\(server.port)/hook" }
    var base: String { "\(scheme)://127.0.0.1:\(server.port)" }

    /// - Parameter tls: serve HTTPS with this certificate instead of HTTP.
    init(answers: [(status: HTTPStatus, headers: HTTPHeaders)] = [], tls: TLSContext? = nil) throws {
        script = answers
        scheme = tls == nil ? "http" : "https"
        var router = RouterBuilder()
        let box = Box()
        // Deferred, so that a stalled answer holds no thread (the handler pool is shared by every
        // server of the test process).
        let handler = RouteHandler.deferred { request, done in
            guard let receiver = box.receiver else { return done(.success(HTTPResponse(status: .serviceUnavailable))) }
            let (wait, response) = receiver.answer(request)
            if wait > 0 {
                DispatchQueue.global().asyncAfter(deadline: .now() + wait) { done(.success(response)) }
            } else {
                done(.success(response))
            }
        }
        router.on(.post, "/hook", handler)
        router.on(.get, "/postback", handler)
        router.on(.post, "/postback", handler)
        // The worker's client keeps its connection open: no drain to wait for when the test ends.
        var limits = HTTPServerLimits()
        limits.drainTimeout = .milliseconds(50)
        server = HTTPServer(host: "127.0.0.1", port: 0, limits: limits, tls: tls, responder: router.build())
        box.receiver = self
        try server.start()
    }

    private final class Box: @unchecked Sendable { weak var receiver: WebhookReceiver? }

    /// Records the request; returns how long to wait and what to answer.
    private func answer(_ request: HTTPRequest) -> (Double, HTTPResponse) {
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.lowercased()] = field.value }
        return lock.withLock {
            received.append(Received(method: "\(request.method)", target: request.target, headers: headers, body: request.body))
            guard !script.isEmpty else { return (stall, HTTPResponse(status: .ok, body: Array("thanks".utf8))) }
            let next = script.removeFirst()
            return (stall, HTTPResponse(status: next.status, headers: next.headers, body: Array("answer \(next.status.code)".utf8)))
        }
    }

    var all: [Received] { lock.withLock { received } }

    /// Waits (bounded) until `count` requests arrived; returns them.
    func wait(for count: Int, seconds: Double = 10) -> [Received] {
        _ = eventually(timeout: seconds) { all.count >= count }
        return all
    }

    deinit { server.shutdownAndWait() }
}
