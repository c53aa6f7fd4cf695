public import Attribution
public import Store

/// What the handlers work with, built once at start-up.
public struct Services: Sendable {
    public let database: Database
    public let clock: any Clock
    public let projects: ProjectRepository
    public let templates: TemplateRepository
    public let stats: StatsRepository
    public let erasure: ErasureRepository
    /// SHA-256 of the admin key; nil turns the admin API off.
    public let adminKeyHash: [UInt8]?

    public init(database: Database, clock: any Clock = SystemClock(), adminKey: String?) {
        self.database = database
        self.clock = clock
        projects = ProjectRepository(database: database, clock: clock)
        templates = TemplateRepository(database: database)
        stats = StatsRepository(database: database)
        erasure = ErasureRepository(database: database)
        adminKeyHash = adminKey.flatMap { $0.isEmpty ? nil : Secrets.sha256($0) }
    }
}
