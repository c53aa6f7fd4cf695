import Dispatch
import HTTP

/// Hands requests straight to the application's responder: the real routes and handlers, without
/// sockets, each request coming from the address the simulation says.
struct InProcessClient: Sendable {
    let responder: any HTTPResponder

    func send(_ method: HTTPMethod, _ target: String, from address: String, headers: HTTPHeaders = [:], json: String? = nil) -> HTTPResponse {
        var headers = headers
        if json != nil { headers.add("Content-Type", "application/json") }
        let request = HTTPRequest(
            method: method, target: target, headers: headers, body: Array((json ?? "").utf8),
            remoteAddress: SocketAddress(ip: address))
        let done = DispatchSemaphore(value: 0)
        let box = ResponseBox()
        responder.respond(to: request) { response in
            box.response = response
            done.signal()
        }
        done.wait()
        return box.response!
    }
}

/// Carries the response from the responder's thread to the waiting one (the semaphore orders it).
private final class ResponseBox: @unchecked Sendable {
    var response: HTTPResponse?
}
