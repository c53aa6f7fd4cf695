import Attribution
public import HTTP
import StoreContracts

/// Composes every API's routes into one router. Fixed prefixes are reserved so the short-link
/// catch-all (`/:code`) never answers for them.
public enum Application {
    /// First path segments that belong to fixed routes, never to short links
    /// (docs/links.md, "What a tap answers"); links and templates may not take them.
    public static let reservedPrefixes = ShortCode.reservedWords

    public static func makeRouter(services: Services, openConnections: @escaping @Sendable () -> Int = { 0 }) -> Router {
        routerBuilder(services: services, openConnections: openConnections).build()
    }

    /// The URL map: every route with its full path, grouped by API; each handler is one function
    /// in the file named after its group. Before the router is frozen (tests read the table).
    static func routerBuilder(services: Services, openConnections: @escaping @Sendable () -> Int = { 0 }) -> RouterBuilder {
        var router = RouterBuilder()
        for prefix in reservedPrefixes { router.reserve(prefix) }
        router.errorResponse = { error, request in services.reported(errorResponse(error, request), for: error, to: request) }

        // Operations (operations.md): Ops/
        // The server's own address leads a person to the dashboard (when it is served); on a
        // project domain, `/?link=…` is a Firebase Dynamic Links long link (Links/).
        router.on(.get, "/", LongLinkRoutes.root(services, home: services.dashboard.enabled ? services.dashboard.prefix + "/" : nil))
        router.on(.get, "/health", HealthRoutes.live)
        router.on(.get, "/health/ready", HealthRoutes.ready(services))
        router.on(.get, "/metrics", MetricsRoutes.metrics(services, openConnections: openConnections))

        // Admin API, /admin/v1 (docs/admin-api.md): Admin/. Every route behind the admin key.
        router.group("/admin/v1", guardedBy: AdminAuth(services: services).check) { admin in
            admin.on(.post, "/projects", AdminRoutes.createProject(services))
            admin.on(.get, "/projects", AdminRoutes.listProjects(services))
            admin.on(.get, "/projects/:id", AdminRoutes.showProject(services))
            admin.on(.patch, "/projects/:id", AdminRoutes.updateProject(services))
            admin.on(.delete, "/projects/:id", AdminRoutes.deleteProject(services))
            admin.on(.post, "/projects/:id/token", AdminRoutes.rotateToken(services))
            admin.on(.post, "/projects/:id/api-keys", AdminRoutes.issueAPIKey(services))
            admin.on(.get, "/projects/:id/api-keys", AdminRoutes.listAPIKeys(services))
            admin.on(.delete, "/projects/:id/api-keys/:keyId", AdminRoutes.revokeAPIKey(services))
            admin.on(.post, "/projects/:id/signing-keys", AdminRoutes.createSigningKey(services))
            admin.on(.delete, "/projects/:id/signing-keys/:keyId", AdminRoutes.revokeSigningKey(services))
            admin.on(.post, "/projects/:id/templates", AdminRoutes.createTemplate(services))
            admin.on(.get, "/projects/:id/templates", AdminRoutes.listTemplates(services))
            admin.on(.get, "/projects/:id/stats", AdminRoutes.stats(services))
            admin.on(.get, "/projects/:id/installs/:installId/skan", AdminRoutes.installSKANValues(services))
            admin.on(.get, "/projects/:id/installs/:installId/explain", AdminRoutes.explainInstall(services))
            admin.on(.get, "/projects/:id/traffic-quality", AdminRoutes.trafficQuality(services))
            admin.on(.delete, "/projects/:id/installs/:installId", AdminRoutes.eraseInstall(services))
            admin.on(.delete, "/projects/:id/users/:userId", AdminRoutes.eraseUser(services))
            admin.on(.post, "/projects/:id/links", AdminLinkRoutes.createLink(services))
            admin.on(.post, "/projects/:id/domains", DomainRoutes.add(services))
            admin.on(.post, "/projects/:id/imports/fdl", LinkImportRoutes.importFDL(services))
            admin.on(.post, "/projects/:id/imports/branch", LinkImportRoutes.importBranch(services))
            admin.on(.get, "/projects/:id/domains", DomainRoutes.list(services))
            admin.on(.delete, "/projects/:id/domains/:domainId", DomainRoutes.remove(services))
            admin.on(.delete, "/projects/:id/domains/:domainId/long-links", DomainRoutes.clearLongLinks(services))
            admin.on(.get, "/projects/:id/links", AdminLinkRoutes.listLinks(services))
            admin.on(.post, "/projects/:id/links/bulk", AdminLinkEditRoutes.bulk(services))
            admin.on(.get, "/projects/:id/links/:linkId", AdminLinkEditRoutes.show(services))
            admin.on(.get, "/projects/:id/links/:linkId/variants", AdminLinkEditRoutes.variants(services))
            admin.on(.patch, "/projects/:id/links/:linkId", AdminLinkEditRoutes.update(services))
            admin.on(.delete, "/projects/:id/links/:linkId", AdminLinkEditRoutes.delete(services))
            admin.on(.get, "/projects/:id/clock", TestClockRoutes.showClock(services))
            admin.on(.post, "/projects/:id/clock", TestClockRoutes.moveClock(services))
            admin.on(.post, "/projects/:id/webhooks", WebhookRoutes.createEndpoint(services))
            admin.on(.get, "/projects/:id/webhooks", WebhookRoutes.listEndpoints(services))
            admin.on(.get, "/projects/:id/webhooks/:webhookId", WebhookRoutes.showEndpoint(services))
            admin.on(.patch, "/projects/:id/webhooks/:webhookId", WebhookRoutes.updateEndpoint(services))
            admin.on(.delete, "/projects/:id/webhooks/:webhookId", WebhookRoutes.deleteEndpoint(services))
            admin.on(.post, "/projects/:id/webhooks/:webhookId/rotate-secret", WebhookRoutes.rotateSecret(services))
            admin.on(.post, "/projects/:id/webhooks/:webhookId/test", WebhookRoutes.sendTest(services))
            admin.on(.post, "/projects/:id/postbacks", PostbackRoutes.create(services))
            admin.on(.get, "/projects/:id/postbacks", PostbackRoutes.list(services))
            admin.on(.get, "/projects/:id/postbacks/:postbackId", PostbackRoutes.show(services))
            admin.on(.patch, "/projects/:id/postbacks/:postbackId", PostbackRoutes.update(services))
            admin.on(.delete, "/projects/:id/postbacks/:postbackId", PostbackRoutes.delete(services))
            admin.on(.post, "/projects/:id/cost", CostRoutes.importCSV(services))
            admin.on(.get, "/projects/:id/cost", CostRoutes.list(services))
            admin.on(.get, "/projects/:id/roas", ROASRoutes.report(services))
            admin.on(.get, "/projects/:id/cost-sources", CostSourceRoutes.list(services))
            admin.on(.put, "/projects/:id/cost-sources/:network", CostSourceRoutes.save(services))
            admin.on(.get, "/projects/:id/cost-sources/:network", CostSourceRoutes.show(services))
            admin.on(.delete, "/projects/:id/cost-sources/:network", CostSourceRoutes.delete(services))
            admin.on(.post, "/projects/:id/cost-sources/:network/pull", CostSourceRoutes.pull(services))
            admin.on(.put, "/projects/:id/export", ExportRoutes.save(services))
            admin.on(.get, "/projects/:id/export", ExportRoutes.show(services))
            admin.on(.delete, "/projects/:id/export", ExportRoutes.delete(services))
            admin.on(.post, "/projects/:id/export/run", ExportRoutes.run(services))
            admin.on(.get, "/projects/:id/revenue-sources", RevenueSourceRoutes.list(services))
            admin.on(.put, "/projects/:id/revenue-sources/:source", RevenueSourceRoutes.save(services))
            admin.on(.get, "/projects/:id/revenue-sources/:source", RevenueSourceRoutes.show(services))
            admin.on(.delete, "/projects/:id/revenue-sources/:source", RevenueSourceRoutes.delete(services))
            admin.on(.put, "/fx-rates", CostRoutes.importRates(services))
            admin.on(.get, "/fx-rates", CostRoutes.showRates(services))
            admin.on(.post, "/fx-rates/fetch", CostRoutes.fetchRates(services))
            admin.on(.get, "/projects/:id/ad-platforms", AdPlatformRoutes.list(services))
            admin.on(.put, "/projects/:id/ad-platforms/:platform", AdPlatformRoutes.save(services))
            admin.on(.get, "/projects/:id/ad-platforms/:platform", AdPlatformRoutes.show(services))
            admin.on(.delete, "/projects/:id/ad-platforms/:platform", AdPlatformRoutes.delete(services))
            admin.on(.post, "/projects/:id/ad-platforms/:platform/test", AdPlatformRoutes.sendTest(services))
            admin.on(.put, "/projects/:id/installs/:installId/consent", AdPlatformRoutes.setConsent(services))
            admin.on(.get, "/projects/:id/installs/:installId/consent", AdPlatformRoutes.showConsent(services))
            admin.on(.put, "/projects/:id/apple-ads", AppleAdsRoutes.setCredentials(services))
            admin.on(.get, "/projects/:id/apple-ads", AppleAdsRoutes.showCredentials(services))
            admin.on(.delete, "/projects/:id/apple-ads", AppleAdsRoutes.deleteCredentials(services))
            admin.on(.get, "/projects/:id/skan/forwarding", SKANAdminRoutes.showForwarding(services))
            admin.on(.put, "/projects/:id/skan/forwarding", SKANAdminRoutes.setForwarding(services))
            admin.on(.get, "/projects/:id/skan/postbacks", SKANAdminRoutes.listPostbacks(services))
            admin.on(.get, "/projects/:id/skan/report", SKANAdminRoutes.report(services))
            admin.on(.get, "/projects/:id/deliveries", WebhookRoutes.listDeliveries(services))
            admin.on(.post, "/projects/:id/deliveries/replay", WebhookRoutes.replayDeliveries(services))
            admin.on(.post, "/projects/:id/deliveries/:deliveryId/replay", WebhookRoutes.replayDelivery(services))
        }

        // The dashboard, /dashboard by default (HTML for people): Dashboard/
        DashboardRoutes.register(on: &router, services)

        // Stores' and RevenueCat's notifications of verified revenue (docs/revenue.md): Revenue/
        router.on(.post, "/notifications/revenuecat/:projectId", RevenueCatReceiver.receive(services))
        router.on(.post, "/notifications/app-store/:projectId", AppStoreReceiver.receive(services))
        router.on(.post, "/notifications/google-play/:projectId", GooglePlayReceiver.receive(services))

        // Linkrunner SDKs, /api/client (linkrunner-api.md): Linkrunner/
        router.on(.post, "/api/client/init", LinkrunnerRoutes.initialize(services))
        router.on(.post, "/api/client/attribution-data", LinkrunnerRoutes.attributionData(services))
        router.on(.post, "/api/client/trigger", LinkrunnerRoutes.trigger(services))
        router.on(.post, "/api/client/set-user-data", LinkrunnerRoutes.setUserData(services))
        router.on(.post, "/api/client/capture-event", LinkrunnerRoutes.captureEvent(services))
        router.on(.post, "/api/client/capture-payment", LinkrunnerRoutes.capturePayment(services))
        router.on(.post, "/api/client/remove-captured-payment", LinkrunnerRoutes.removeCapturedPayment(services))
        router.on(.post, "/api/client/update-push-token", LinkrunnerRoutes.updatePushToken(services))
        router.on(.post, "/api/client/integrations", LinkrunnerRoutes.integrations(services))
        router.on(.post, "/api/client/customer-user-id", LinkrunnerRoutes.customerUserID(services))
        router.on(.post, "/api/client/deeplink-triggered", LinkrunnerRoutes.deeplinkTriggered(services))
        router.on(.post, "/api/client/handle-deeplink", LinkrunnerRoutes.handleDeeplink(services))

        // LinkForty SDKs, /api/sdk/v1 and /api/links (linkforty-api.md): LinkForty/
        router.on(.post, "/api/sdk/v1/install", LinkFortyInstallRoutes.install(services))
        router.on(.post, "/api/sdk/v1/event", LinkFortyInstallRoutes.event(services))
        router.on(.get, "/api/sdk/v1/health", LinkFortyInstallRoutes.health(services))
        router.on(.get, "/api/sdk/v1/resolve/:code", ResolveRoutes.route(services))
        router.on(.get, "/api/sdk/v1/resolve/:slug/:code", ResolveRoutes.route(services))
        router.on(.post, "/api/sdk/v1/links", LinkFortyLinkRoutes.createSDKLink(services))
        router.on(.post, "/api/links", LinkFortyLinkRoutes.createLink(services))
        router.on(.get, "/api/links", LinkFortyLinkRoutes.listLinks(services))
        router.on(.get, "/api/links/:id", LinkFortyLinkRoutes.showLink(services))
        router.on(.put, "/api/links/:id", LinkFortyLinkRoutes.updateLink(services))
        router.on(.delete, "/api/links/:id", LinkFortyLinkRoutes.deleteLink(services))

        // WarpLink SDKs, /v1 (warplink-api.md): WarpLink/
        router.on(.get, "/v1/sdk/validate", WarpLinkRoutes.validate(services))
        router.on(.get, "/v1/links/resolve/:slug", WarpLinkRoutes.resolve(services))
        router.on(.post, "/v1/attribution/match", WarpLinkRoutes.match(services))
        router.on(.post, "/v1/links", WarpLinkRoutes.createLink(services))

        // Branch's SDKs (docs/sdk-apis.md, "Branch"): Branch/
        router.on(.post, "/v1/install", BranchRoutes.install(services))
        router.on(.post, "/v1/open", BranchRoutes.open(services))
        router.on(.post, "/v2/event/standard", BranchEventRoutes.event(services))
        router.on(.post, "/v2/event/custom", BranchEventRoutes.event(services))
        router.on(.post, "/v1/url", BranchLinkRoutes.create(services))
        router.on(.get, "/v1/url", BranchLinkRoutes.read(services))
        router.on(.post, "/v1/profile", BranchLinkRoutes.profile(services))
        router.on(.post, "/v1/logout", BranchLinkRoutes.logout(services))
        let noAttribution = JSONValue.object(["last_attributed_touch_data": .object([:]), "attribution_window": .number(30)])
        router.on(.post, "/v1/cpid/latd", BranchLinkRoutes.acknowledged(services, answer: noAttribution))
        let noCrossPlatformIDs = JSONValue.object([
            "user_data": .object(["past_cross_platform_ids": .array([]), "prob_cross_platform_ids": .array([])])
        ])
        router.on(.post, "/v1/cpid", BranchLinkRoutes.acknowledged(services, answer: noCrossPlatformIDs))
        for path in ["/v1/pageview", "/v1/register-view", "/v1/app-link-settings"] {
            router.on(.post, path, BranchLinkRoutes.acknowledged(services, answer: .object([:])))
        }
        router.on(.get, "/v1/app-link-settings", BranchLinkRoutes.acknowledged(services, answer: .object([:])))

        // Firebase Dynamic Links' REST API (fdl.md): FDL/
        router.on(.post, "/v1/shortLinks", FDLShortLinkRoutes.create(services))

        // The link host (links-and-clicks.md): Links/
        router.on(.get, "/tls/allowed", DomainRoutes.allowed(services))
        router.on(.get, "/.well-known/acme-challenge/:token", DomainRoutes.acmeChallenge(services))
        router.on(.get, "/.well-known/apple-app-site-association", WellKnownRoutes.appleAppSiteAssociation(services))
        router.on(.get, "/.well-known/assetlinks.json", WellKnownRoutes.assetLinks(services))
        // Apple's postback copies, on every Host (docs/skan-postbacks.md): SKAN/
        for path in ["/.well-known/skadnetwork/report-attribution/", "/.well-known/skadnetwork/report-attribution"] {
            router.on(.post, path, ApplePostbackRoutes.receive(services, framework: .skadnetwork))
        }
        for path in ["/.well-known/appattribution/report-attribution/", "/.well-known/appattribution/report-attribution"] {
            router.on(.post, path, ApplePostbackRoutes.receive(services, framework: .adattributionkit))
        }
        router.on(.post, "/c/:clickId", BeaconRoutes.beaconJSON(services))
        router.on(.get, "/c/:clickId", BeaconRoutes.beaconQuery(services))
        router.on(.get, "/:code/qr", QRCodeRoutes.route(services))
        router.on(.get, "/:slug/:code/qr", QRCodeRoutes.route(services))
        router.on(.get, "/:code", ClickRoutes.route(services))
        router.on(.get, "/:slug/:code", ClickRoutes.route(services))
        // A password page's form (docs/links.md, "Passwords").
        router.on(.post, "/:code", LinkPasswordRoutes.submit(services))
        router.on(.post, "/:slug/:code", LinkPasswordRoutes.submit(services))
        return router
    }

    /// The router behind the per-IP rate limit (when `rateLimit` is set), observed for metrics
    /// and request logs (when `log` is given). `openConnections` samples the server for /metrics.
    public static func makeResponder(
        services: Services, rateLimit: RateLimitSettings?, log: RequestLog? = nil,
        openConnections: @escaping @Sendable () -> Int = { 0 }
    ) -> any HTTPResponder {
        let router = makeRouter(services: services, openConnections: openConnections)
        let limited: any RoutedResponder =
            rateLimit.map {
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
