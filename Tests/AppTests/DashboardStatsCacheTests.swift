@testable import App
import Foundation
import Store
import Synchronization
import Testing

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
            let clicks = (try? cache.stats(for: key) {
                tally.sums.withLock { $0 += 1 }
                usleep(200_000)
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
