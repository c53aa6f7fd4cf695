public import Attribution
public import StoreContracts

/// What the team asks of its data: stats over a time range, erasure of an install or a user, and
/// the database's health and write counters for operations.
public struct ReportService: Sendable {
    let store: any StoreBackend
    let clocks: ProjectClocks
    let dashboardCache = DashboardStatsCache()
    let dashboardSeriesCache = DashboardSeriesCache()
    let breakdownCache = BreakdownCache()
    let linkDaysCache = LinkDaysCache()
    let linkCohortCache = LinkCohortCache()
    let watchedPeriods = WatchedPeriods()

    /// The project's stats; Apple Ads rows carry the names fetched for their ids.
    public func stats(project: Project, since: Timestamp, until: Timestamp) throws -> ProjectStats {
        // Nothing is stamped after now (a test-mode project's clock aside, which a test may set
        // anywhere): a period that ends now or later may as well end with its UTC day, which the
        // rollups answer alone, instead of counting today's rows.
        var until = until
        if !project.testMode && until >= clocks.now(projectID: project.id) {
            until = until.roundedUp(toMultipleOf: Self.day)
        }
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

    /// The link's A/B split over [since, until): each variant it has now, with its counts (a
    /// variant that had none yet shows zeros; a removed one that still has counts is listed too).
    public func variants(project: Project, link: Link, since: Timestamp, until: Timestamp) throws -> [VariantCounts] {
        let counted = try store.stats.variants(
            projectID: project.id, linkID: link.id, since: since, until: until, currency: project.settings.currency)
        var rows = link.variants.map { variant in counted.first { $0.name == variant.name } ?? VariantCounts(name: variant.name) }
        rows += counted.filter { row in !link.variants.contains { $0.name == row.name } }
        return rows
    }

    static let day: Int64 = 86_400_000

    /// The stats the dashboard shows: what came before today (UTC) from `DashboardStatsCache`
    /// (refreshed in the background every 30 s while viewed), today's live. A past day changes only
    /// when an install is re-attributed or erased, a link deleted, or an old install signs up or
    /// pays. `GET …/stats` never uses it.
    public func dashboardStats(project: Project, since: Timestamp, until: Timestamp) throws -> ProjectStats {
        let todayStart = clocks.now(projectID: project.id).roundedDown(toMultipleOf: Self.day)
        func closed(_ end: Timestamp) throws -> ProjectStats {
            let key = DashboardStatsCache.Key(
                projectID: project.id, since: since.milliseconds, until: end.milliseconds,
                currency: project.settings.currency)
            return try dashboardCache.stats(for: key) { [self] in try stats(project: project, since: since, until: end) }
        }
        if until <= todayStart { return try closed(until) }
        if since >= todayStart { return try stats(project: project, since: since, until: until) }
        return try closed(todayStart).adding(try stats(project: project, since: todayStart, until: until))
    }

    /// Asks for the dashboard period `name` of the project to be kept summed ahead of its views
    /// (`warmWatchedPeriods`); `bounds` finds it again at any later time.
    public func watchDashboardPeriod(
        _ name: String, projectID: String,
        bounds: @escaping @Sendable (Project, Timestamp) -> (since: Timestamp, until: Timestamp)?
    ) {
        watchedPeriods.watch(name, projectID: projectID, bounds: bounds)
    }

    /// One pass over the watched periods: the past of each (before today, UTC) is summed again when
    /// the cache has none for its current bounds or one older than `olderThanSeconds`. Runs in the
    /// background, one sum at a time.
    public func warmWatchedPeriods(olderThanSeconds: Int = 240, project find: (String) throws -> Project?) {
        for watch in watchedPeriods.current() {
            guard let project = try? find(watch.projectID) else { continue }
            let now = clocks.now(projectID: project.id)
            guard let (since, until) = watch.bounds(project, now) else { continue }
            let todayStart = now.roundedDown(toMultipleOf: Self.day)
            let end = min(until, todayStart)
            guard since < end else { continue }
            let key = DashboardStatsCache.Key(
                projectID: project.id, since: since.milliseconds, until: end.milliseconds,
                currency: project.settings.currency)
            dashboardCache.refresh(key, ifOlderThanSeconds: olderThanSeconds) { [self] in try stats(project: project, since: since, until: end) }
        }
    }

    /// The project's totals per bucket between consecutive boundaries, for charts (from the hourly rollup).
    public func series(project: Project, boundaries: [Timestamp]) throws -> [StatsBucket] {
        try store.stats.series(projectID: project.id, boundaries: boundaries, currency: project.settings.currency)
    }

    /// The chart the dashboard shows: the buckets that end by today (UTC) from `dashboardSeriesCache`
    /// as `dashboardStats` keeps its past, the rest live. A 90-day chart reads ~10,000 rows of
    /// hourly money and counts: most of an overview's time if every view read them again.
    public func dashboardSeries(project: Project, boundaries: [Timestamp]) throws -> [StatsBucket] {
        let todayStart = clocks.now(projectID: project.id).roundedDown(toMultipleOf: Self.day)
        guard let split = boundaries.lastIndex(where: { $0 <= todayStart }), split > 0 else {
            return try series(project: project, boundaries: boundaries)
        }
        let closedBoundaries = Array(boundaries[...split])
        let key = DashboardSeriesCache.Key(
            projectID: project.id, since: boundaries[0].milliseconds, until: boundaries[split].milliseconds,
            currency: project.settings.currency, what: closedBoundaries.map { String($0.milliseconds) }.joined(separator: ","))
        let closed = try dashboardSeriesCache.stats(for: key) { [self] in try series(project: project, boundaries: closedBoundaries) }
        guard split < boundaries.count - 1 else { return closed }
        return closed + (try series(project: project, boundaries: Array(boundaries[split...])))
    }

    /// What the dashboard lists: installs, one install's activity, a link's clicks and days.
    public var browse: any BrowseStore { store.browse }

    /// What the install's explanation is told with (`ExplanationAnnotations`): Apple Ads' claim,
    /// and the network's clicks other installs had claimed before it came.
    public func annotations(installID: String, project: Project) throws -> ExplanationAnnotations {
        var annotations = ExplanationAnnotations()
        if let claim = try store.appleAds.claim(installID: installID) {
            annotations.claims.append(
                .init(source: "apple_ads", status: claim.status.rawValue, won: claim.won, campaignID: claim.answer?.campaignID))
        }
        let horizon = MatchingPolicy(project: project.settings).probabilisticHorizonSeconds * 1000
        annotations.claimedEarlier = try store.browse.clicksClaimedEarlier(
            installID: installID, projectID: project.id, horizonMilliseconds: horizon, limit: 10)
        return annotations
    }

    public func eraseInstall(_ installID: String, project: Project) throws {
        guard try store.erasure.eraseInstall(projectID: project.id, installID: installID, at: clocks.clock(for: project).now()) else {
            throw AppError.notFound("project \(project.id) has no install \(installID)")
        }
    }

    public func eraseUser(_ userID: String, project: Project) throws {
        guard try store.erasure.eraseUser(projectID: project.id, userID: userID, at: clocks.clock(for: project).now()) else {
            throw AppError.notFound("project \(project.id) has no data for user \(userID)")
        }
    }

    /// Whether the database answers (readiness).
    public func ping() throws { try store.ping() }

    public var writeStatistics: WriteStatistics { store.writeStatistics }
}
