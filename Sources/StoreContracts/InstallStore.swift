public import Attribution

/// Installs: the attribution transaction (cascade run on the transaction's clicks, winner
/// claimed), and what later calls read of an install.
public protocol InstallStore: Sendable {
    /// - Parameter notify: the outbox jobs a new install causes, written in its transaction.
    func report(
        _ report: InstallReport, policy: MatchingPolicy, installID: String, skan: SKANStore.Context?,
        notify: Notifier<InstallOutcome>?, delivery: WriteDelivery?,
        completion: @escaping @Sendable (Result<InstallOutcome, any Error>) -> Void)
    func reportAndWait(_ report: InstallReport, policy: MatchingPolicy, installID: String) throws -> InstallOutcome
    func find(id: String, projectID: String) throws -> StoredInstall?
    func attributionRecords(projectID: String) throws -> [InstallAttributionRecord]
    func projectOf(installID: String) throws -> String?
}

/// In-app events (idempotent by client event id).
public protocol EventStore: Sendable {
    /// - Parameter notify: the outbox jobs a new (not repeated) event causes, in its transaction.
    func record(
        _ event: EventRecord, eventID: String, skan: SKANStore.Context?, notify: Notifier<StoredEvent>?, delivery: WriteDelivery?,
        completion: @escaping @Sendable (Result<(eventID: String, duplicate: Bool, skan: SKANValues?), any Error>) -> Void)
}

/// What an install's user does after `init`: identity, payments, install fields, SKAN values.
public protocol UserStore: Sendable {
    func install(projectID: String, instanceID: String) throws -> StoredInstall?
    func saveUser(
        _ user: UserProfile, projectID: String, installID: String, now: Timestamp, signupEvent: Bool,
        skan: SKANStore.Context?, notify: Notifier<UserProfile>?
    ) throws -> SKANValues?
    func skanValues(installID: String, now: Timestamp, skan: SKANStore.Context?) throws -> SKANValues?
    func updateInstall(_ installID: String, pushToken: String?, integrations: String?, userID: String?, deeplinkOpenedAt: Timestamp?) throws
    /// - Parameter notify: the outbox jobs a new (not repeated) payment causes, in its transaction.
    func capturePayment(
        _ payment: PaymentRecord, projectID: String, installID: String, now: Timestamp,
        skan: SKANStore.Context?, notify: Notifier<PaymentRecord>?, delivery: WriteDelivery?,
        completion: @escaping @Sendable (Result<(duplicate: Bool, skan: SKANValues?), any Error>) -> Void)
    /// - Parameter notify: the outbox jobs written when something was removed (given the count).
    func removePayments(
        projectID: String, installID: String, userID: String, paymentID: String?, now: Timestamp,
        notify: Notifier<Int>?
    ) throws -> Int
}

/// Counts for the stats API and CLI.
public protocol StatsStore: Sendable {
    func stats(projectID: String, since: Timestamp, until: Timestamp, currency: String) throws -> ProjectStats
    /// Project totals per bucket between consecutive boundaries (charts), from the hourly rollup.
    func series(projectID: String, boundaries: [Timestamp], currency: String) throws -> [StatsBucket]
    /// `rollup_tallies` of `dimensions` summed over the whole UTC hours `hours`: dimension →
    /// value → sum (the breakdowns, migration 0039).
    func tallySums(projectID: String, dimensions: [String], hours: Range<Int64>) throws -> [String: [String: Int64]]
    /// The same hour by hour (the cohorts, counted at each install's hour).
    func tallyHours(projectID: String, dimensions: [String], hours: Range<Int64>) throws -> [TallyCount]
    /// A link's A/B variants over [since, until): human clicks, installs credited to them, those
    /// installs' events and event revenue by currency (`currency` for events that name none).
    func variants(projectID: String, linkID: String, since: Timestamp, until: Timestamp, currency: String) throws -> [VariantCounts]
}

/// One A/B variant's counts (`StatsStore.variants`).
public struct VariantCounts: Sendable, Equatable {
    public var name: String
    public var clicks = 0
    public var installs = 0
    public var events = 0
    public var revenue: [String: Double] = [:]

    public init(name: String, clicks: Int = 0, installs: Int = 0, events: Int = 0, revenue: [String: Double] = [:]) {
        self.name = name
        self.clicks = clicks
        self.installs = installs
        self.events = events
        self.revenue = revenue
    }
}

/// Deletion of an install or a user and everything recorded about them. Each erasure leaves a row
/// in `erasures` at `time` (the raw export's, for a warehouse to delete by).
public protocol ErasureStore: Sendable {
    func eraseInstall(projectID: String, installID: String, at time: Timestamp) throws -> Bool
    func eraseUser(projectID: String, userID: String, at time: Timestamp) throws -> Bool
}
