public import Attribution
public import Store

/// What the team asks of its data: stats over a time range, erasure of an install or a user, and
/// the database's health and write counters for operations.
public struct ReportService: Sendable {
    let store: any StoreBackend

    /// The project's stats; Apple Ads rows carry the names fetched for their ids.
    public func stats(project: Project, since: Timestamp, until: Timestamp) throws -> ProjectStats {
        var stats = try store.stats.stats(projectID: project.id, since: since, until: until, currency: project.settings.currency)
        if !stats.appleAds.isEmpty {
            let names = try store.appleAdsNames.names(projectID: project.id)
            for index in stats.appleAds.indices {
                stats.appleAds[index].campaignName = names.name(.campaign, stats.appleAds[index].campaignID)
                stats.appleAds[index].adGroupName = names.name(.adGroup, stats.appleAds[index].adGroupID)
                stats.appleAds[index].keyword = names.name(.keyword, stats.appleAds[index].keywordID)
            }
        }
        return stats
    }

    /// The project's totals per bucket of `bucketHours` hours, for charts (from the hourly rollup).
    public func series(project: Project, since: Timestamp, until: Timestamp, bucketHours: Int) throws -> [StatsBucket] {
        try store.stats.series(projectID: project.id, since: since, until: until, bucketHours: bucketHours, currency: project.settings.currency)
    }

    /// What the dashboard lists: installs, one install's activity, a link's clicks and days.
    public var browse: any BrowseStore { store.browse }

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
