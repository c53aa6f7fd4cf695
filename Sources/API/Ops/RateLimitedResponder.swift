import Dispatch
public import HTTP

/// Puts the per-IP limit in front of the application's public endpoints. The admin API and health
/// probes are exempt (operators and orchestrators must always get through).
public struct RateLimitedResponder: RoutedResponder {
    let inner: Router
    let limiter: RateLimiter<SocketAddress.ClientKey>
    let clientIP: ClientIPResolver
    let now: @Sendable () -> UInt64

    public init(inner: Router, limiter: RateLimiter<SocketAddress.ClientKey>, clientIP: ClientIPResolver) {
        self.init(inner: inner, limiter: limiter, clientIP: clientIP, now: { DispatchTime.now().uptimeNanoseconds })
    }

    init(inner: Router, limiter: RateLimiter<SocketAddress.ClientKey>, clientIP: ClientIPResolver, now: @escaping @Sendable () -> UInt64) {
        self.inner = inner
        self.limiter = limiter
        self.clientIP = clientIP
        self.now = now
    }

    public func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse, _ pattern: String?) -> Void) {
        let path = request.path
        let exempt = path.hasPrefix("/admin/") || path == "/health" || path.hasPrefix("/health/") || path == "/metrics"
        guard !exempt, let client = clientIP.clientAddress(of: request),
            let wait = limiter.retryAfter(client: client.clientKey, now: now())
        else {
            inner.respond(to: request, completion: completion)
            return
        }
        let seconds = retryAfterSeconds(wait)
        let message = "too many requests from this address; retry in \(seconds) s"
        var response =
            path.hasPrefix("/api/client/")
            ? Envelope.error(.tooManyRequests, message)
            : ErrorBody.response(status: .tooManyRequests, code: "rate_limited", message: message)
        response.headers.add("Retry-After", String(seconds))
        // Refused before routing: the pattern is looked up for the metrics only on this rare path.
        completion(response, inner.pattern(method: request.method, path: request.path))
    }
}
