import Attribution
import Cryptography
import Foundation
import Store
import StoreContracts
import Synchronization
import Testing

@testable import App

/// The dashboard's cache of past periods: one sum for viewers who arrive together, and the
/// cached answer once it is there.
@Suite struct DashboardStatsCacheTests {
    final class Tally: Sendable {
        let sums = Mutex(0)
        let answers = Mutex<[Int]>([])
    }

    static func stats(clicks: Int) -> ProjectStats {
        var counts = ProjectStats.Counts()
        counts.clicks = clicks
        return ProjectStats(totals: counts, links: [])
    }

    @Test func viewersWhoArriveTogetherShareOneSum() throws {
        let cache = DashboardStatsCache()
        let key = DashboardStatsCache.Key(projectID: "p", since: 0, until: 1, currency: "USD")
        let tally = Tally()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let clicks =
                (try? cache.stats(for: key) {
                    tally.sums.withLock { $0 += 1 }
                    usleep(200_000)  // about time: a slow sum, so the other viewers arrive during it
                    return Self.stats(clicks: 7)
                })?.totals.clicks ?? -1
            tally.answers.withLock { $0.append(clicks) }
        }
        #expect(tally.answers.withLock { $0 } == [7, 7, 7, 7])
        #expect(tally.sums.withLock { $0 } == 1)
        // Fresh: answered from the cache without summing again.
        #expect(try cache.stats(for: key) { Self.stats(clicks: 8) }.totals.clicks == 7)
    }
}

/// The warm pass sums a watched period's past before anyone views it, and again for the new
/// period a new day makes; what it stores is what a view answers.
@Suite struct WatchedPeriodTests {
    @Test func aWatchedPeriodIsSummedAheadOfItsViewAndAgainOnANewDay() throws {
        let day: Int64 = 86_400_000
        let clock = TestClock(Timestamp(milliseconds: 20_000 * day + 3_600_000))  // 01:00 UTC
        let (folder, app, project, link) = try ShopWithALink.make(clock: clock)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Three clicks yesterday: the past of a 7-day period.
        let written = DispatchSemaphore(value: 0)
        for minute in 0..<3 {
            let at = Timestamp(milliseconds: 19_999 * day + Int64(minute) * 60_000)
            app.store.clicks.record(
                countTowardLimit: false,
                Click(
                    clickID: TimeOrderedID.secure(at: at), projectID: project.id, linkID: link.id,
                    source: .link, createdAt: at)
            ) { _ in written.signal() }
        }
        for _ in 0..<3 { written.wait() }

        let sevenDays: @Sendable (Project, Timestamp) -> (since: Timestamp, until: Timestamp)? = { _, now in
            let today = now.milliseconds / day * day
            return (Timestamp(milliseconds: today - 6 * day), Timestamp(milliseconds: today + day))
        }
        func key(_ now: Timestamp) -> DashboardStatsCache.Key {
            let today = now.milliseconds / day * day
            return DashboardStatsCache.Key(projectID: project.id, since: today - 6 * day, until: today, currency: project.settings.currency)
        }
        app.reports.watchDashboardPeriod("7d", projectID: project.id, bounds: sevenDays)
        #expect(app.reports.dashboardCache.cached(key(clock.now())) == nil)
        app.reports.warmWatchedPeriods { try app.projects.cachedProject(id: $0) }
        #expect(app.reports.dashboardCache.cached(key(clock.now()))?.totals.clicks == 3)

        // A view answers from what the warm pass stored: a click of the past added since (the
        // entry is fresh) is not in it; today's clicks are counted live.
        let late = Timestamp(milliseconds: 19_999 * day + 3_600_000)
        app.store.clicks.record(
            countTowardLimit: false,
            Click(
                clickID: TimeOrderedID.secure(at: late), projectID: project.id, linkID: link.id,
                source: .link, createdAt: late)
        ) { _ in written.signal() }
        written.wait()
        let (since, until) = try #require(sevenDays(project, clock.now()))
        #expect(try app.reports.dashboardStats(project: project, since: since, until: until).totals.clicks == 3)

        // A new day is a new period: summed by the next pass, with the click it now covers.
        clock.move(to: Timestamp(milliseconds: 20_001 * day + 60_000))
        #expect(app.reports.dashboardCache.cached(key(clock.now())) == nil)
        app.reports.warmWatchedPeriods { try app.projects.cachedProject(id: $0) }
        #expect(app.reports.dashboardCache.cached(key(clock.now()))?.totals.clicks == 4)
    }
}

/// The overview's chart: its past buckets summed once and kept, today's bucket live, and the two
/// together the same buckets as the live series.
@Suite struct DashboardSeriesTests {
    @Test func pastBucketsAreKeptAndTodaysIsLive() throws {
        let day: Int64 = 86_400_000
        let clock = TestClock(Timestamp(milliseconds: 20_000 * day + 5 * 3_600_000))  // 05:00 UTC
        let (folder, app, project, link) = try ShopWithALink.make(clock: clock)
        defer { try? FileManager.default.removeItem(at: folder) }
        let written = DispatchSemaphore(value: 0)
        func click(at milliseconds: Int64) {
            let at = Timestamp(milliseconds: milliseconds)
            app.store.clicks.record(
                countTowardLimit: false,
                Click(clickID: TimeOrderedID.secure(at: at), projectID: project.id, linkID: link.id, source: .link, createdAt: at)
            ) { _ in written.signal() }
            written.wait()
        }
        click(at: 19_998 * day + 60_000)  // two days ago
        click(at: 19_999 * day + 7_200_000)  // yesterday
        click(at: 20_000 * day + 60_000)  // today
        let boundaries = (0...3).map { Timestamp(milliseconds: (19_998 + Int64($0)) * day) }

        let first = try app.reports.dashboardSeries(project: project, boundaries: boundaries)
        #expect(first.map(\.counts.clicks) == [1, 1, 1])
        #expect(first == (try app.reports.series(project: project, boundaries: boundaries)))

        // A late click yesterday waits for the kept past to be summed again; today's shows at once.
        click(at: 19_999 * day + 10_800_000)
        click(at: 20_000 * day + 120_000)
        #expect(try app.reports.dashboardSeries(project: project, boundaries: boundaries).map(\.counts.clicks) == [1, 1, 2])
        #expect(try app.reports.series(project: project, boundaries: boundaries).map(\.counts.clicks) == [1, 2, 2])
    }
}

/// A project with one link on a fresh SQLite database in a temporary folder (removed by the caller).
enum ShopWithALink {
    static func make(clock: TestClock) throws -> (folder: URL, app: AppServices, project: Project, link: Link) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-dashboard-\(UUID().uuidString)")
        let app = AppServices(store: SQLiteStore(database: try Database(path: folder.appendingPathComponent("db.sqlite").path)), clock: clock)
        let project = try app.projects.create(name: "Shop", settings: ProjectSettings()).project
        let link = Link(
            id: UUID().uuidString.lowercased(), projectID: project.id, shortCode: "spring", originalURL: "https://example.com/a",
            createdAt: clock.now())
        _ = try app.links.create(link, codeIsCustom: true)
        return (folder, app, project, link)
    }
}
