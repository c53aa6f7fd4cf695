import Attribution
import Synchronization

/// The dashboard's ROAS reports for a minute (its overview and ROAS pages): a report reads a
/// revenue tally per link and day, a row per revenue fact at scale (300,000 for 90 days at 1M
/// installs, docs/performance.md), which a viewer moving between pages need not pay for again.
/// The admin API and the command line always compute afresh.
final class ROASReportCache: Sendable {
    struct Key: Hashable {
        let projectID, since, until, grouping, reportingCurrency, currency, timeZone: String
    }

    static let seconds: Int64 = 60
    static let capacity = 256
    private let entries = Mutex<[Key: (report: ROASReport, at: Int64)]>([:])

    func report(_ key: Key, now: Timestamp, compute: () throws -> ROASReport) throws -> ROASReport {
        if let entry = entries.withLock({ $0[key] }), now.milliseconds - entry.at < Self.seconds * 1000 { return entry.report }
        let report = try compute()
        entries.withLock { entries in
            if entries.count >= Self.capacity {
                for stale in entries.filter({ now.milliseconds - $0.value.at >= Self.seconds * 1000 }).keys { entries[stale] = nil }
                if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.at < $1.value.at })?.key { entries[oldest] = nil }
            }
            entries[key] = (report, now.milliseconds)
        }
        return report
    }
}
