public import HTTP
import Attribution
import Store

/// Composes every API's routes into one router. Fixed prefixes are reserved so the short-link
/// catch-all (`/:code`) never answers for them.
public enum Application {
    /// First path segments that belong to fixed routes, never to short links
    /// (shared/spec/links-and-clicks.md, "Click routes"); links and templates may not take them.
    public static let reservedPrefixes = ShortCode.reservedWords

    public static func makeRouter(services: Services, openConnections: @escaping @Sendable () -> Int = { 0 }) -> Router {
        routerBuilder(services: services, openConnections: openConnections).build()
    }

    /// Every route, before the router is frozen (tests read the table).
    static func routerBuilder(services: Services, openConnections: @escaping @Sendable () -> Int = { 0 }) -> RouterBuilder {
        var router = RouterBuilder()
        for prefix in reservedPrefixes { router.reserve(prefix) }
        router.errorResponse = { error, request in services.reported(errorResponse(error, request), for: error, to: request) }
        HealthRoutes.register(in: &router, services: services)
        MetricsRoutes.register(in: &router, services: services, openConnections: openConnections)
        AdminRoutes.register(in: &router, services: services)
        AdminLinkRoutes.register(in: &router, services: services)
        TestClockRoutes.register(in: &router, services: services)
        LinkFortyLinkRoutes.register(in: &router, services: services)
        ResolveRoutes.register(in: &router, services: services)
        LinkFortyInstallRoutes.register(in: &router, services: services)
        LinkrunnerRoutes.register(in: &router, services: services)
        WellKnownRoutes.register(in: &router, services: services)
        BeaconRoutes.register(in: &router, services: services)
        QRCodeRoutes.register(in: &router, services: services)
        ClickRoutes.register(in: &router, services: services)
        return router
    }

    /// The router behind the per-IP rate limit (when `rateLimit` is set), observed for metrics
    /// and request logs (when `log` is given). `openConnections` samples the server for /metrics.
    public static func makeResponder(services: Services, rateLimit: RateLimiter.Settings?, log: RequestLog? = nil,
                                     openConnections: @escaping @Sendable () -> Int = { 0 }) -> any HTTPResponder {
        let router = makeRouter(services: services, openConnections: openConnections)
        let limited: any RoutedResponder = rateLimit.map {
            RateLimitedResponder(inner: router, limiter: RateLimiter(settings: $0), clientIP: services.clientIP)
        } ?? router
        return ObservedResponder(inner: limited, metrics: services.metrics, log: log, services: services)
    }

    /// Refusals of the layers below are the client's to fix (404/409/422); anything else is ours
    /// (500, no details).
    static let errorResponse: @Sendable (any Error, HTTPRequest) -> HTTPResponse = { error, request in
        if let clientError = ClientErrors.httpError(for: error) { return clientError.response }
        return Router.defaultErrorResponse(error, request)
    }
}
