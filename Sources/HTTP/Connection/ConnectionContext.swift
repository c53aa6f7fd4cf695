import Dispatch
import Synchronization

/// What every connection of one server shares: the application, where handlers run, the limits,
/// and the server-wide count of requests being handled (back-pressure: beyond the limit a request
/// is answered 503 at once instead of queueing without bound).
final class ConnectionContext: Sendable {
    let responder: any HTTPResponder
    let limits: HTTPServerLimits
    private let inFlight = Atomic<Int>(0)
    let overloaded: HTTPResponse
    /// Set for an HTTPS listener.
    let tls: TLSContext?
    /// Told why a handler's response was replaced by a 500 (`ResponseSerializer.headerProblem`).
    let onRefusedResponse: @Sendable (String) -> Void
    /// Request bytes held by every connection together (`maxBufferedBodyBytes`).
    let bodyBudget: BodyBudget

    init(
        responder: any HTTPResponder, limits: HTTPServerLimits, tls: TLSContext? = nil,
        onRefusedResponse: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.responder = responder
        self.limits = limits
        self.tls = tls
        self.onRefusedResponse = onRefusedResponse
        self.bodyBudget = BodyBudget(limit: limits.maxBufferedBodyBytes)
        var response = ErrorBody.response(
            status: .serviceUnavailable, code: "overloaded",
            message: "the server is busy; retry shortly")
        response.headers.add("Retry-After", String(limits.retryAfterSeconds))
        self.overloaded = response
    }

    func acquireRequestSlot() -> Bool {
        if inFlight.add(1, ordering: .relaxed).newValue > limits.maxInFlightRequests {
            inFlight.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    func releaseRequestSlot() {
        inFlight.subtract(1, ordering: .relaxed)
    }
}
