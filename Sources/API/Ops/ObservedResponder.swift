import Dispatch
public import HTTP
import Attribution

/// The outermost responder: times every request, counts it by route pattern and status for
/// `/metrics`, and logs it.
public struct ObservedResponder: HTTPResponder {
    let inner: any HTTPResponder
    let router: Router
    let metrics: Metrics
    let log: RequestLog?
    let services: Services

    public init(inner: any HTTPResponder, router: Router, metrics: Metrics, log: RequestLog?, services: Services) {
        self.inner = inner
        self.router = router
        self.metrics = metrics
        self.log = log
        self.services = services
    }

    public func respond(to request: HTTPRequest, completion: @escaping @Sendable (HTTPResponse) -> Void) {
        let started = DispatchTime.now().uptimeNanoseconds
        let route = router.pattern(method: request.method, path: request.path) ?? "unmatched"
        // Health probes arrive every few seconds from orchestrators: counted, not logged.
        let isProbe = route.hasPrefix("/health") || route == "/api/sdk/v1/health"
        let metrics = self.metrics, log = isProbe ? nil : self.log, services = self.services
        inner.respond(to: request) { response in
            let elapsed = DispatchTime.now().uptimeNanoseconds - started
            metrics.recordRequest(route: route, status: response.status.code, seconds: Double(elapsed) / 1e9)
            log?.record(method: request.method.rawValue, route: route, status: response.status.code, microseconds: Int(elapsed / 1000),
                        bytes: response.body.count, ip: services.clientIP.clientAddress(of: request)?.ipString)
            completion(response)
        }
    }
}
