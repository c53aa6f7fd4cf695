/// One notification of a store (or of RevenueCat) as the server acts on it: money that came in
/// for a transaction, money given back, or nothing that changes revenue (a renewal switched off,
/// an expiry, a test).
public struct StoreTransaction: Sendable, Equatable {
    public enum Effect: String, Sendable {
        /// A purchase or a renewal: its amount counts, once per transaction id.
        case purchase
        /// A refund or a revocation: the transaction's payment no longer counts.
        case refund
        /// Nothing that changes revenue (kept as a notification only).
        case none
    }

    public var source: RevenueSource
    /// The notification's own id: a retry carries the same, and changes nothing again.
    public var notificationID: String
    /// The store's name for what happened (`INITIAL_PURCHASE`, `DID_RENEW/BILLING_RECOVERY`…).
    public var type: String
    public var effect: Effect
    public var transactionID: String
    public var originalTransactionID: String?
    /// Whole units of `currency` (`4.99`).
    public var amount: Double?
    public var currency: String?
    /// When the store says it was bought (milliseconds), or refunded.
    public var occurredAt: Int64?
    /// Whether the store marked it as a sandbox or test purchase: kept, never counted.
    public var isSandbox: Bool
    /// What may name the install, most specific first: an install id or a user id the app gave
    /// the store (`appAccountToken`, `obfuscatedExternalAccountId`, RevenueCat's app user ids).
    public var accountIdentifiers: [String]
    public var productID: String?

    public init(
        source: RevenueSource, notificationID: String, type: String, effect: Effect, transactionID: String, originalTransactionID: String? = nil,
        amount: Double? = nil, currency: String? = nil, occurredAt: Int64? = nil, isSandbox: Bool = false, accountIdentifiers: [String] = [],
        productID: String? = nil
    ) {
        self.source = source
        self.notificationID = notificationID
        self.type = type
        self.effect = effect
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.amount = amount
        self.currency = currency
        self.occurredAt = occurredAt
        self.isSandbox = isSandbox
        self.accountIdentifiers = accountIdentifiers
        self.productID = productID
    }
}
