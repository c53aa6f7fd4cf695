public import Attribution
public import Store
import HTTP

/// What the handlers work with, built once at start-up. A class: handlers capture it in every
/// closure they pass on, and a class costs one retain there where a struct of references costs one each.
public final class Services: Sendable {
    public let database: Database
    /// The server's clock: for what belongs to no project (key creation, signatures, logs).
    public let clock: any Clock
    /// Each project's clock: test-mode projects have their own.
    public let clocks: ProjectClocks
    public let projects: ProjectRepository
    public let templates: TemplateRepository
    public let links: LinkRepository
    public let clicks: ClickRepository
    public let installs: InstallRepository
    public let events: EventRepository
    public let signingKeys: SigningKeyRepository
    /// The project LinkForty requests without an API key or app token belong to (by name).
    public let defaultProject: String?
    public let stats: StatsRepository
    public let erasure: ErasureRepository
    public let linkCache: LinkCache
    public let projectCache: ProjectCache
    public let skanSchemas: SKANSchemaCache
    public let metrics: Metrics
    public let clientIP: ClientIPResolver
    /// SHA-256 of the admin key; nil turns the admin API off.
    public let adminKeyHash: [UInt8]?
    /// Failed admin authentications by client address (`AdminAuth.failureBudget`).
    let adminAuthFailures = RateLimiter(settings: AdminAuth.failureBudget, maxClients: 50_000)
    /// The links' public base URL (`https://go.example.com`); nil: taken from each request's Host,
    /// when `publicHosts` accepts it.
    public let publicURL: String?
    public let publicHosts: PublicHosts
    /// Told of every error that became a 500, with the request's method and path: the client gets
    /// no details, so the operator's log must have them.
    public let reportInternalError: @Sendable (_ error: any Error, _ request: String) -> Void

    public init(database: Database, clock: any Clock = SystemClock(), adminKey: String?, trustedProxies: [String] = [],
                publicURL: String? = nil, allowedHosts: [String] = [], defaultProject: String? = nil,
                reportInternalError: @escaping @Sendable (_ error: any Error, _ request: String) -> Void = { _, _ in }) {
        self.defaultProject = defaultProject
        self.reportInternalError = reportInternalError
        installs = InstallRepository(database: database)
        events = EventRepository(database: database)
        signingKeys = SigningKeyRepository(database: database)
        self.database = database
        self.clock = clock
        projects = ProjectRepository(database: database, clock: clock)
        clocks = ProjectClocks(server: clock, projects: projects)
        templates = TemplateRepository(database: database)
        links = LinkRepository(database: database)
        clicks = ClickRepository(database: database)
        stats = StatsRepository(database: database)
        erasure = ErasureRepository(database: database)
        linkCache = LinkCache()
        projectCache = ProjectCache()
        // Caches follow commits: a project, key or signing-key change empties the project cache (and,
        // as links carry their project's and template's settings, the link cache) before the
        // write's caller hears of it.
        let projectCache = self.projectCache, linkCache = self.linkCache
        database.observeCommits(changing: ["projects", "api_keys", "signing_keys", "templates"]) { changed in
            projectCache.invalidateAll()
            if changed.contains("projects") || changed.contains("templates") { linkCache.invalidateAll() }
        }
        // Nothing may wait on the database on an event loop (debug builds record any such call).
        database.forbidBlocking { EventLoopThread.isCurrent }
        skanSchemas = SKANSchemaCache()
        metrics = Metrics()
        clientIP = ClientIPResolver(trustedProxies: trustedProxies)
        adminKeyHash = adminKey.flatMap { $0.isEmpty ? nil : Secrets.sha256($0) }
        var base = publicURL
        while base?.hasSuffix("/") == true { base?.removeLast() }
        self.publicURL = base
        publicHosts = PublicHosts(allowed: allowedHosts)
    }

    /// The response, after telling `reportInternalError` of the error behind it when it is a 500.
    func reported(_ response: HTTPResponse, for error: any Error, to request: HTTPRequest) -> HTTPResponse {
        if response.status == .internalServerError { reportInternalError(error, "\(request.method) \(request.path)") }
        return response
    }

    /// "Now" for the project: its test clock in test mode, else the server's.
    public func now(for project: Project) -> Timestamp { clocks.clock(for: project).now() }
}
