public import Attribution
public import StoreContracts

/// The application layer: the use cases every API, the command line and the simulator share,
/// the caches in front of the store, and each project's clock. Handlers translate wire formats
/// to calls here; nothing above this layer touches a store.
public final class AppServices: Sendable {
    public let store: any StoreBackend
    /// The server's clock: for what belongs to no project (key creation, signatures).
    public let clock: any Clock
    /// Each project's clock: test-mode projects have their own.
    public let clocks: ProjectClocks
    public let projects: ProjectService
    public let links: LinkService
    public let domains: DomainService
    public let installs: InstallService
    public let activity: ActivityService
    public let clicks: ClickService
    public let reports: ReportService
    public let webhooks: WebhookService
    /// Where outbound requests may go (webhooks, postbacks).
    public let outboundPolicy: OutboundAddressPolicy
    public let deliveryCounters = DeliveryCounters()
    let webhookEndpoints: ByProjectCache<WebhookEndpoint>
    let outbound: OutboundMessages
    public let postbacks: PostbackService
    public let appleAds: AppleAdsService
    public let dashboard: DashboardService
    public let applePostbacks: ApplePostbackService
    let appleAdsExchange: AppleAdsExchange
    let adPlatformDelivery: AdPlatformDelivery
    public let adPlatforms: AdPlatformService
    public let costs: CostService
    public let exchangeRates: ExchangeRateService
    public let roas: ROASService
    public let storeRevenue: StoreRevenueService
    public let costPulls: CostPullService
    let appleAdsTokens: AppleAdsAccessTokens
    /// The outbox worker's transport, for the requests made outside the outbox.
    let outboundTransport = LateTransport()
    public let rateFetcher: ECBRateFetcher
    public let exports: ExportService

    /// - Parameter beforeBlocking: called before a cache miss reads the store; the HTTP
    ///   composition makes it throw on an event loop, so the request moves to the handler pool.
    public init(
        store: any StoreBackend, clock: any Clock = SystemClock(),
        outboundPolicy: OutboundAddressPolicy = OutboundAddressPolicy(allowPrivateAddresses: false),
        appleAds appleAdsSettings: AppleAdsSettings = AppleAdsSettings(),
        adPlatforms adPlatformSettings: AdPlatformSettings = AdPlatformSettings(),
        revenue revenueSettings: RevenueSettings = RevenueSettings(),
        clickBacklogLimit: Int = ClickService.defaultBacklogLimit,
        exportScratch: String = ExportService.defaultScratch,
        beforeBlocking: @escaping @Sendable () throws -> Void = {}
    ) {
        self.store = store
        self.clock = clock
        self.outboundPolicy = outboundPolicy
        clocks = ProjectClocks(server: clock, projects: store.projects)
        let projectCache = ProjectCache(beforeBlocking: beforeBlocking)
        let linkCache = LinkCache()
        let skanSchemas = SKANSchemaCache()
        let domainMap = DomainMap(load: { try store.domains.all() }, beforeBlocking: beforeBlocking)
        store.observeCommits(changing: [.domains]) { _ in domainMap.invalidate() }
        // Caches follow commits: a project, key or signing-key change empties the project cache
        // (and, as links carry their project's and template's settings, the link cache) before the
        // write's caller hears of it, whichever route or use case wrote.
        store.observeCommits(changing: [.projects, .apiKeys, .signingKeys, .templates]) { changed in
            projectCache.invalidateAll()
            if changed.contains(.projects) || changed.contains(.templates) { linkCache.invalidateAll() }
        }
        // Another node's link edits: this node's own empty the cache in LinkService; on SQLite
        // no other node writes, and every click's count would otherwise be heard here.
        if store.sharedWithOtherNodes {
            store.observeCommits(changing: [.links]) { _ in linkCache.invalidateAll() }
        }
        let webhookEndpoints = ByProjectCache(
            load: { try store.outbox.allEndpoints() }, projectID: \.projectID,
            beforeBlocking: beforeBlocking)
        let postbackTemplates = ByProjectCache(
            load: { try store.postbacks.allTemplates() }, projectID: \.projectID,
            beforeBlocking: beforeBlocking)
        let adPlatformConnections = ByProjectCache(
            load: { try store.adPlatforms.allConnections() }, projectID: \.projectID,
            beforeBlocking: beforeBlocking)
        self.webhookEndpoints = webhookEndpoints
        store.observeCommits(changing: [.webhookEndpoints, .postbackTemplates, .adPlatformConnections]) { changed in
            if changed.contains(.webhookEndpoints) { webhookEndpoints.invalidate() }
            if changed.contains(.postbackTemplates) { postbackTemplates.invalidate() }
            if changed.contains(.adPlatformConnections) { adPlatformConnections.invalidate() }
        }
        // What the command line (another process) changed, on SQLite: the same caches emptied,
        // a link's entry by its code.
        store.observeOtherProcesses { changes in
            let topics = Set(changes.map(\.topic))
            if !topics.isDisjoint(with: [.projects, .apiKeys, .signingKeys, .templates]) { projectCache.invalidateAll() }
            if !topics.isDisjoint(with: [.projects, .templates]) || changes.contains(where: { $0.topic == .links && $0.linkCode == nil }) {
                linkCache.invalidateAll()
            } else {
                for change in changes where change.topic == .links { if let code = change.linkCode { linkCache.invalidate(code: code) } }
            }
            if topics.contains(.webhookEndpoints) { webhookEndpoints.invalidate() }
            if topics.contains(.domains) { domainMap.invalidate() }
            if topics.contains(.postbackTemplates) { postbackTemplates.invalidate() }
            if topics.contains(.adPlatformConnections) { adPlatformConnections.invalidate() }
        }
        let outbound = OutboundMessages(
            endpoints: webhookEndpoints, templates: postbackTemplates, connections: adPlatformConnections, adPlatforms: adPlatformSettings)
        self.outbound = outbound
        projects = ProjectService(store: store, cache: projectCache, clocks: clocks, clock: clock, beforeBlocking: beforeBlocking)
        links = LinkService(store: store, cache: linkCache, clocks: clocks, beforeBlocking: beforeBlocking)
        domains = DomainService(store: store, map: domainMap, clock: clock, linksRemoved: { linkCache.invalidateAll() })
        let relayTaps = RecentRelayTaps(stored: try? store.clicks.latestRelayTaps())
        installs = InstallService(store: store, skanSchemas: skanSchemas, clocks: clocks, outbound: outbound, relayTaps: relayTaps)
        activity = ActivityService(store: store, skanSchemas: skanSchemas, clocks: clocks, outbound: outbound)
        clicks = ClickService(store: store, clocks: clocks, relayTaps: relayTaps, backlogLimit: clickBacklogLimit)
        reports = ReportService(store: store, clocks: clocks)
        webhooks = WebhookService(store: store, clock: clock, policy: outboundPolicy)
        postbacks = PostbackService(store: store, clock: clock, policy: outboundPolicy)
        appleAds = AppleAdsService(store: store, settings: appleAdsSettings)
        dashboard = DashboardService(store: store, clock: clock)
        applePostbacks = ApplePostbackService(store: store, clock: clock, outbound: outbound, schemas: skanSchemas, policy: outboundPolicy)
        appleAdsExchange = AppleAdsExchange(store: store, settings: appleAdsSettings, outbound: outbound, projects: projectCache)
        adPlatformDelivery = AdPlatformDelivery(
            store: store, settings: adPlatformSettings, outbound: outbound, projects: projectCache, counters: deliveryCounters, clock: clock)
        adPlatforms = AdPlatformService(store: store, clock: clock, settings: adPlatformSettings, delivery: adPlatformDelivery)
        costs = CostService(store: store, clock: clock)
        exchangeRates = ExchangeRateService(store: store)
        roas = ROASService(store: store, reports: reports, exchangeRates: exchangeRates)
        storeRevenue = StoreRevenueService(store: store, clocks: clocks, settings: revenueSettings, outbound: outboundTransport)
        appleAdsTokens = AppleAdsAccessTokens(settings: appleAdsSettings, clock: clock)
        rateFetcher = ECBRateFetcher(url: revenueSettings.exchangeRatesURL, store: store, clock: clock, outbound: outboundTransport)
        costPulls = CostPullService(
            store: store, clocks: clocks, settings: adPlatformSettings, appleAds: appleAdsSettings, appleAdsTokens: appleAdsTokens,
            node: TimeOrderedID.generate(at: clock.now()), outbound: outboundTransport)
        exports = ExportService(store: store, clocks: clocks, clock: clock, scratch: exportScratch)
    }

    /// The delivery worker for this store's outbox, woken by every commit that writes a job.
    public func makeOutboxWorker(transport: any OutboundTransport, settings: OutboxWorker.Settings = OutboxWorker.Settings()) -> OutboxWorker {
        let store = self.store
        let endpoints = webhookEndpoints
        var exchange = appleAdsExchange
        outboundTransport.set(transport)
        let names = AppleAdsNameFetcher(
            store: store, transport: transport, settings: exchange.settings, clock: clock, userAgent: settings.userAgent, tokens: appleAdsTokens)
        exchange.onAttributed = { projectID, answer in names.fetchMissing(projectID: projectID, answer: answer) }
        let worker = OutboxWorker(
            store: store, transport: transport, clock: clock, settings: settings, counters: deliveryCounters,
            appleAds: exchange, adPlatforms: adPlatformDelivery,
            factLog: OutboxLogJobs(outbound: outbound) { [projects] id in
                try projects.cache.project(forID: id, repository: store.projects)
            }
        ) { id, projectID in
            try endpoints.values(projectID: projectID).first { $0.id == id }
        }
        store.observeCommits(changing: [.newJobs, .jobs]) { [weak worker] _ in worker?.wake() }
        if store.outbox.factsAreALog {
            store.observeCommits(changing: [.events, .installs]) { [weak worker] _ in worker?.factsCommitted() }
        }
        return worker
    }

    /// "Now" for the project: its test clock in test mode, else the server's.
    public func now(for project: Project) -> Timestamp { clocks.clock(for: project).now() }
}
