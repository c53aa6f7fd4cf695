public import Attribution

/// How many stored postback copies share one report cell's values (`ApplePostbackStore.tallies`).
public struct ApplePostbackTally: Sendable, Equatable {
    public var framework: ApplePostback.Framework
    public var adNetworkID: String
    /// The source identifier, or an older SKAdNetwork version's campaign id.
    public var source: String
    public var sequenceIndex: Int
    public var redownload: Bool
    public var fineValue: Int?
    public var coarseValue: SKANSchema.Coarse?
    public var count: Int

    public init(
        framework: ApplePostback.Framework, adNetworkID: String, source: String, sequenceIndex: Int, redownload: Bool, fineValue: Int?,
        coarseValue: SKANSchema.Coarse?, count: Int
    ) {
        self.framework = framework
        self.adNetworkID = adNetworkID
        self.source = source
        self.sequenceIndex = sequenceIndex
        self.redownload = redownload
        self.fineValue = fineValue
        self.coarseValue = coarseValue
        self.count = count
    }
}

/// Apple's postback copies a project received (`skan_postbacks`).
public protocol ApplePostbackStore: Sendable {
    /// Stores the copy and its outbox jobs in one transaction; false, and nothing written, when
    /// the project already has a copy with its dedupe key (Apple's device retries for days).
    func insert(_ postback: StoredApplePostback, messages: [OutboxMessage]) throws -> Bool
    /// Newest first, received in [since, until), before the (time, id) cursor when given.
    func list(projectID: String, since: Timestamp, until: Timestamp, before: (Timestamp, String)?, limit: Int) throws
        -> [StoredApplePostback]
    /// Counts of the copies received in [since, until) by framework, network, source, window,
    /// redownload and value.
    func tallies(projectID: String, since: Timestamp, until: Timestamp) throws -> [ApplePostbackTally]
}
