public import Attribution
public import Store

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
    public let installs: InstallService
    public let activity: ActivityService
    public let clicks: ClickService
    public let reports: ReportService

    /// - Parameter beforeBlocking: called before a cache miss reads the store; the HTTP
    ///   composition makes it throw on an event loop, so the request moves to the handler pool.
    public init(store: any StoreBackend, clock: any Clock = SystemClock(),
                beforeBlocking: @escaping @Sendable () throws -> Void = {}) {
        self.store = store
        self.clock = clock
        clocks = ProjectClocks(server: clock, projects: store.projects)
        let projectCache = ProjectCache(beforeBlocking: beforeBlocking)
        let linkCache = LinkCache()
        let skanSchemas = SKANSchemaCache()
        // Caches follow commits: a project, key or signing-key change empties the project cache
        // (and, as links carry their project's and template's settings, the link cache) before the
        // write's caller hears of it, whichever route or use case wrote.
        store.observeCommits(changing: ["projects", "api_keys", "signing_keys", "templates"]) { changed in
            projectCache.invalidateAll()
            if changed.contains("projects") || changed.contains("templates") { linkCache.invalidateAll() }
        }
        projects = ProjectService(store: store, cache: projectCache, clocks: clocks, clock: clock, beforeBlocking: beforeBlocking)
        links = LinkService(store: store, cache: linkCache, clocks: clocks, beforeBlocking: beforeBlocking)
        installs = InstallService(store: store, skanSchemas: skanSchemas, clocks: clocks)
        activity = ActivityService(store: store, skanSchemas: skanSchemas, clocks: clocks)
        clicks = ClickService(store: store, clocks: clocks)
        reports = ReportService(store: store, skanSchemas: skanSchemas, clocks: clocks)
    }

    /// "Now" for the project: its test clock in test mode, else the server's.
    public func now(for project: Project) -> Timestamp { clocks.clock(for: project).now() }
}
