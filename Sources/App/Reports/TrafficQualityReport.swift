public import Attribution
public import JSON
import StoreContracts

/// Rejections and flags of a period by reason, source and campaign, with their rates among the
/// period's installs (`GET …/traffic-quality`, the dashboard's Traffic quality page, the CLI).
public struct TrafficQualityReport: Sendable, Equatable {
    public struct Count: Sendable, Equatable {
        public var key: String
        /// For campaigns: their source.
        public var source: String?
        public var rejected: Int
        public var flagged: Int
    }

    public var since: Timestamp
    public var until: Timestamp
    public var installs: Int
    public var rejected: Int
    public var flagged: Int
    /// Every reason and flag, with those that never occurred at zero (a page's rows stay put).
    public var byReason: [Count]
    public var bySource: [Count]
    public var byCampaign: [Count]

    init(_ rows: TrafficQualityRows, since: Timestamp, until: Timestamp) {
        self.since = since
        self.until = until
        installs = rows.installs
        rejected = rows.groups.filter { !$0.rejectedReasons.isEmpty }.reduce(0) { $0 + $1.installs }
        flagged = rows.groups.filter { !$0.flags.isEmpty }.reduce(0) { $0 + $1.installs }
        var reasons: [String: Count] = [:]
        for reason in RejectionReason.allCases { reasons[reason.rawValue] = Count(key: reason.rawValue, rejected: 0, flagged: 0) }
        for flag in QualityFlag.allCases { reasons[flag.rawValue] = Count(key: flag.rawValue, rejected: 0, flagged: 0) }
        var sources: [String: Count] = [:]
        var campaigns: [String: Count] = [:]
        for group in rows.groups {
            let isRejected = !group.rejectedReasons.isEmpty
            let isFlagged = !group.flags.isEmpty
            for reason in group.rejectedReasons { reasons[reason, default: Count(key: reason, rejected: 0, flagged: 0)].rejected += group.installs }
            for flag in group.flags { reasons[flag, default: Count(key: flag, rejected: 0, flagged: 0)].flagged += group.installs }
            let source = group.source ?? "(none)"
            let campaign = group.campaign ?? "(none)"
            func add(_ count: inout Count) {
                if isRejected { count.rejected += group.installs }
                if isFlagged { count.flagged += group.installs }
            }
            add(&sources[source, default: Count(key: source, rejected: 0, flagged: 0)])
            add(&campaigns["\(source)\u{1F}\(campaign)", default: Count(key: campaign, source: source, rejected: 0, flagged: 0)])
        }
        func ordered(_ counts: [String: Count]) -> [Count] {
            counts.values.sorted { ($1.rejected + $1.flagged, $0.source ?? "", $0.key) < ($0.rejected + $0.flagged, $1.source ?? "", $1.key) }
        }
        byReason = reasons.values.sorted { $0.key < $1.key }
        bySource = ordered(sources)
        byCampaign = ordered(campaigns)
    }

    /// A share of the period's installs, 0 when there were none.
    public func rate(_ count: Int) -> Double { installs == 0 ? 0 : (Double(count) / Double(installs) * 10_000).rounded() / 10_000 }

    public var json: JSONValue {
        func rows(_ counts: [Count], key: String) -> JSONValue {
            .array(
                counts.map { count in
                    var fields: [String: JSONValue] = [
                        key: .string(count.key), "rejected": .number(Double(count.rejected)), "flagged": .number(Double(count.flagged)),
                        "rejection_rate": .number(rate(count.rejected)), "flag_rate": .number(rate(count.flagged)),
                    ]
                    if let source = count.source { fields["source"] = .string(source) }
                    return .object(fields)
                })
        }
        return .object([
            "since": .string(since.iso8601), "until": .string(until.iso8601), "installs": .number(Double(installs)),
            "rejected": .number(Double(rejected)), "flagged": .number(Double(flagged)),
            "rejection_rate": .number(rate(rejected)), "flag_rate": .number(rate(flagged)),
            "by_reason": rows(byReason, key: "reason"), "by_source": rows(bySource, key: "source"),
            "by_campaign": rows(byCampaign, key: "campaign"),
        ])
    }
}

extension ReportService {
    public func trafficQuality(project: Project, since: Timestamp, until: Timestamp) throws -> TrafficQualityReport {
        TrafficQualityReport(
            try store.browse.trafficQuality(projectID: project.id, since: since.milliseconds, until: until.milliseconds), since: since,
            until: until)
    }
}
