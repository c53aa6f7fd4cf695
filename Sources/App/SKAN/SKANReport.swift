public import Attribution
public import StoreContracts

/// What Apple measured in a period, per framework × ad network × source × window, beside the
/// installs we attributed ourselves in the same period.
public struct SKANReport: Sendable, Equatable {
    public struct Row: Sendable, Equatable {
        public var framework: ApplePostback.Framework
        public var adNetworkID: String
        public var source: String
        public var sequenceIndex: Int
        public var postbacks = 0
        public var redownloads = 0
        /// Postbacks by fine value, by coarse value, and with neither (below Apple's privacy threshold).
        public var fineValues: [Int: Int] = [:]
        public var coarseValues: [String: Int] = [:]
        public var withoutValue = 0
        /// Postbacks whose value says the event happened, by event.
        public var events: [String: Int] = [:]
        /// The revenue the values stand for, summed: at least, and below (nil: some value is open above).
        public var revenueAtLeast = 0.0
        public var revenueBelow: Double? = 0
        /// Postbacks whose value says nothing of revenue.
        public var withoutRevenue = 0
    }

    public var rows: [Row]
    public var postbacks: Int
    public var redownloads: Int
    /// The schema's base currency (the revenue's unit).
    public var currency: String?
    /// Our own installs in the period: all, and those we attributed to a click or Apple Ads.
    public var ourInstalls: Int
    public var ourAttributedInstalls: Int

    static func build(tallies: [ApplePostbackTally], schema: SKANSchema?, ours: ProjectStats.Counts) -> SKANReport {
        var rows: [String: Row] = [:]
        var order: [String] = []
        for tally in tallies {
            let key = "\(tally.framework.rawValue)\u{0}\(tally.adNetworkID)\u{0}\(tally.source)\u{0}\(tally.sequenceIndex)"
            if rows[key] == nil {
                order.append(key)
                rows[key] = Row(framework: tally.framework, adNetworkID: tally.adNetworkID, source: tally.source, sequenceIndex: tally.sequenceIndex)
            }
            rows[key]!.add(tally, schema: schema)
        }
        let list = order.map { rows[$0]! }
        return SKANReport(
            rows: list, postbacks: list.reduce(0) { $0 + $1.postbacks }, redownloads: list.reduce(0) { $0 + $1.redownloads },
            currency: schema?.baseCurrency, ourInstalls: ours.installs, ourAttributedInstalls: ours.attributedInstalls)
    }
}

extension SKANReport.Row {
    mutating func add(_ tally: ApplePostbackTally, schema: SKANSchema?) {
        postbacks += tally.count
        if tally.redownload { redownloads += tally.count }
        if let fine = tally.fineValue { fineValues[fine, default: 0] += tally.count }
        if let coarse = tally.coarseValue { coarseValues[coarse.rawValue, default: 0] += tally.count }
        if tally.fineValue == nil && tally.coarseValue == nil { withoutValue += tally.count }
        let decoded =
            schema.flatMap { schema in
                tally.fineValue.flatMap { SKANValueDecoder.decode(fine: $0, sequenceIndex: tally.sequenceIndex, schema: schema) }
                    ?? tally.coarseValue.flatMap { SKANValueDecoder.decode(coarse: $0, sequenceIndex: tally.sequenceIndex, schema: schema) }
            }
        for event in decoded?.events ?? [] { events[event, default: 0] += tally.count }
        guard let decoded, decoded.revenueAtLeast != nil || decoded.revenueBelow != nil else {
            withoutRevenue += tally.count
            return
        }
        revenueAtLeast += (decoded.revenueAtLeast ?? 0) * Double(tally.count)
        if let below = decoded.revenueBelow, let sum = revenueBelow { revenueBelow = sum + below * Double(tally.count) } else { revenueBelow = nil }
    }
}

extension ApplePostbackService {
    public func report(project: Project, since: Timestamp, until: Timestamp, ours: ProjectStats.Counts) throws -> SKANReport {
        SKANReport.build(
            tallies: try store.applePostbacks.tallies(projectID: project.id, since: since, until: until),
            schema: schemas.context(for: project)?.schema, ours: ours)
    }
}
