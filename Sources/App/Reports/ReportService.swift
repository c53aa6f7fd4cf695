public import Attribution
public import Store

/// What the team asks of its data: stats over a time range, erasure of an install or a user, and
/// the database's health and write counters for operations.
public struct ReportService: Sendable {
    let store: any StoreBackend

    public func stats(project: Project, since: Timestamp, until: Timestamp) throws -> ProjectStats {
        try store.stats.stats(projectID: project.id, since: since, until: until, currency: project.settings.currency)
    }

    public func eraseInstall(_ installID: String, project: Project) throws {
        guard try store.erasure.eraseInstall(projectID: project.id, installID: installID) else {
            throw AppError.notFound("project \(project.id) has no install \(installID)")
        }
    }

    public func eraseUser(_ userID: String, project: Project) throws {
        guard try store.erasure.eraseUser(projectID: project.id, userID: userID) else {
            throw AppError.notFound("project \(project.id) has no data for user \(userID)")
        }
    }

    /// Whether the database answers (readiness).
    public func ping() throws { try store.ping() }

    public var writeStatistics: WriteStatistics { store.writeStatistics }
}
