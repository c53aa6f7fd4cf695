public import Attribution

/// A project's connection to one source of store-verified revenue: what identifies the app there
/// (`settings`: `bundle_id`, `package_name`) and its credentials (`secrets`: RevenueCat's
/// `authorization`, Google Play's `service_account` and `push_secret`; write-only at the API).
public struct RevenueSourceConnection: Sendable, Equatable {
    public var projectID: String
    public var source: RevenueSource
    public var settings: [String: String]
    public var secrets: [String: String]
    public var updatedAt: Timestamp

    public init(projectID: String, source: RevenueSource, settings: [String: String], secrets: [String: String], updatedAt: Timestamp) {
        self.projectID = projectID
        self.source = source
        self.settings = settings
        self.secrets = secrets
        self.updatedAt = updatedAt
    }
}

/// What a store notification did.
public struct StoreRevenueOutcome: Sendable, Equatable {
    public enum Result: String, Sendable {
        /// A new verified payment counts.
        case stored
        /// The SDK's payment of the same transaction now carries the store's amount (counted once).
        case verifiedSDKPayment = "verified_sdk_payment"
        /// The transaction's payment no longer counts.
        case refunded
        /// Nothing changed: a retry of a notification, a transaction already verified, a refund of
        /// nothing counted, a sandbox purchase, or one that changes no revenue.
        case unchanged
        /// No install of the project is named by it: kept, counted nowhere.
        case unmatched
    }

    public var result: Result
    public var installID: String?
    public var duplicate: Bool

    public init(result: Result, installID: String?, duplicate: Bool = false) {
        self.result = result
        self.installID = installID
        self.duplicate = duplicate
    }
}

/// Store-verified revenue (docs/revenue.md): each project's sources, and their notifications as
/// payments of the installs they name.
public protocol RevenueStore: Sendable {
    func save(_ connection: RevenueSourceConnection) throws
    func connection(projectID: String, source: RevenueSource) throws -> RevenueSourceConnection?
    func connections(projectID: String) throws -> [RevenueSourceConnection]
    func delete(projectID: String, source: RevenueSource) throws -> Bool

    /// Keeps the notification once (by its id) and, in the same transaction, applies what it
    /// does to the payments of the install it names.
    func record(_ transaction: StoreTransaction, projectID: String, at now: Timestamp) throws -> StoreRevenueOutcome
}
