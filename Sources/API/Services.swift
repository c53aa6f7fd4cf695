public import App
public import Attribution
import Cryptography
import Dispatch
import HTTP
public import StoreContracts

/// What the handlers work with, built once at start-up: the application layer, and what only
/// HTTP needs (client addresses, public hosts, metrics, the admin key). A class: handlers capture
/// it in every closure they pass on, and a class costs one retain there where a struct of
/// references costs one each.
public final class Services: Sendable {
    public let app: AppServices
    /// The server's clock: for what belongs to no project (key creation, signatures, logs).
    public var clock: any Clock { app.clock }
    /// The project LinkForty requests without an API key or app token belong to (by name).
    public let defaultProject: String?
    public let metrics: Metrics
    public let clientIP: ClientIPResolver
    /// SHA-256 of the admin key; nil turns the admin API off.
    public let adminKeyHash: [UInt8]?
    /// Failed admin authentications by client address (`AdminAuth.failureBudget`).
    let adminAuthFailures = RateLimiter<SocketAddress.ClientKey>(settings: AdminAuth.failureBudget, maxClients: 50_000)
    /// Where the dashboard is served, and whether at all.
    public let dashboard: DashboardSettings
    /// Wrong link passwords per client (the same budget as sign-in's, kept apart from it).
    let linkPasswordFailures = RateLimiter<SocketAddress.ClientKey>(settings: AdminAuth.failureBudget, maxClients: 50_000)
    let longLinkMinting = RateLimiter<SocketAddress.ClientKey>(settings: LongLinkRoutes.mintingBudget, maxClients: 50_000)
    /// Where a tap's country comes from (`country_header`, `geoip_database`).
    public let countries: TapCountries
    /// The classes of addresses (`private_relay_list`, `ip_lists`, carrier NAT built in).
    public let addressLists: AddressLists
    /// Failed email-and-password sign-ins per client (admin-key sign-ins spend `adminAuthFailures`).
    let dashboardSignInFailures = RateLimiter<SocketAddress.ClientKey>(settings: AdminAuth.failureBudget, maxClients: 50_000)
    /// The links' public base URL (`https://go.example.com`); nil: taken from each request's Host,
    /// when `publicHosts` accepts it.
    public let publicURL: String?
    public let publicHosts: PublicHosts
    /// Told of every error that became a 500, with the request's method and path: the client gets
    /// no details, so the operator's log must have them.
    public let reportInternalError: @Sendable (_ error: any Error, _ request: String) -> Void

    /// SHA-256 of the token that reads `/metrics` only (nil: the admin key alone reads it).
    public let metricsTokenHash: [UInt8]?

    /// Where the admin key came from (the sign-in page says where to find it).
    public let adminKeyOrigin: ServerAdminKey.Origin

    /// - Parameter adminKeyHash: the hash of a key the server made for itself
    ///   (`ServerAdminKey`), used when `adminKey` is nil.
    public init(
        store: any StoreBackend, clock: any Clock = SystemClock(), adminKey: String?,
        adminKeyHash generated: (hash: [UInt8]?, origin: ServerAdminKey.Origin)? = nil, metricsToken: String? = nil,
        trustedProxies: [String] = [],
        publicURL: String? = nil, allowedHosts: [String] = [], defaultProject: String? = nil,
        outboundPolicy: OutboundAddressPolicy = OutboundAddressPolicy(allowPrivateAddresses: false),
        appleAds: AppleAdsSettings = AppleAdsSettings(), adPlatforms: AdPlatformSettings = AdPlatformSettings(),
        revenue: RevenueSettings = RevenueSettings(), dashboard: DashboardSettings = DashboardSettings(),
        countries: TapCountries = TapCountries(), addressLists: AddressLists = AddressLists(),
        clickBacklogLimit: Int = ClickService.defaultBacklogLimit, exportScratch: String = ExportService.defaultScratch,
        reportInternalError: @escaping @Sendable (_ error: any Error, _ request: String) -> Void = { _, _ in }
    ) {
        // A cache miss on an event loop moves the request to the handler pool (the router runs it
        // again there); nothing may wait on the database on a loop (debug builds record any such call).
        app = AppServices(
            store: store, clock: clock, outboundPolicy: outboundPolicy, appleAds: appleAds, adPlatforms: adPlatforms, revenue: revenue,
            clickBacklogLimit: clickBacklogLimit, exportScratch: exportScratch,
            beforeBlocking: { try MoveToPool.unlessOffLoop() })
        store.forbidBlocking { EventLoopThread.isCurrent }
        self.defaultProject = defaultProject
        self.dashboard = dashboard
        self.countries = countries
        self.addressLists = addressLists
        self.reportInternalError = reportInternalError
        metrics = Metrics()
        clientIP = ClientIPResolver(trustedProxies: trustedProxies)
        metricsTokenHash = metricsToken.flatMap { $0.isEmpty ? nil : Secrets.sha256($0) }
        if let adminKey, !adminKey.isEmpty {
            adminKeyHash = Secrets.sha256(adminKey)
            adminKeyOrigin = .configured
        } else {
            adminKeyHash = generated?.hash
            adminKeyOrigin = generated?.origin ?? .none
        }
        var base = publicURL
        while base?.hasSuffix("/") == true { base?.removeLast() }
        self.publicURL = base
        let publicHosts = PublicHosts(allowed: allowedHosts)
        self.publicHosts = publicHosts
        let publicURLHost = base.flatMap { RequestAuthority.authority(ofTarget: $0) }.flatMap { RequestAuthority.hostName(of: $0) }
        app.domains.reserveServerNames { name in name == publicURLHost || publicHosts.isServerName(name) }
    }

    /// The response, after telling `reportInternalError` of the error behind it when it is a 500,
    /// or a database that could not be reached (whose cause the client's 503 does not tell).
    func reported(_ response: HTTPResponse, for error: any Error, to request: HTTPRequest) -> HTTPResponse {
        if response.status == .internalServerError { reportInternalError(error, "\(request.method) \(request.path)") }
        if case .unavailable? = error as? StoreError, outageReports.due(now: DispatchTime.now().uptimeNanoseconds) {
            reportInternalError(error, "\(request.method) \(request.path)")
        }
        return response
    }

    /// An outage fails every request: its cause is logged once every 10 s, not once a request.
    let outageReports = ReportThrottle(intervalSeconds: 10)

    /// "Now" for the project: its test clock in test mode, else the server's.
    public func now(for project: Project) -> Timestamp { app.now(for: project) }
}
