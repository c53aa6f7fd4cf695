/// One fact an ad platform hears of: an install, one of its events or a payment, with what the
/// platform's event carries besides the install's fields.
public struct AdConversion: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Codable { case install, event, payment }

    public var kind: Kind
    /// The event's name; `install` and `payment` for those facts.
    public var name: String
    /// The stored fact's id (event, payment or install): with the platform, the deduplication key.
    public var factID: String
    public var revenue: Double?
    public var currency: String?
    /// When it happened, milliseconds since the epoch.
    public var occurredAt: Int64

    public init(kind: Kind, name: String, factID: String, revenue: Double? = nil, currency: String? = nil, occurredAt: Int64) {
        self.kind = kind
        self.name = name
        self.factID = factID
        self.revenue = revenue
        self.currency = currency
        self.occurredAt = occurredAt
    }

    enum CodingKeys: String, CodingKey {
        case kind, name, revenue, currency
        case factID = "fact_id"
        case occurredAt = "occurred_at"
    }

    /// The key a retry and a replay send unchanged (Meta's and TikTok's `event_id`, Snap's
    /// `client_dedup_id`): one per fact and platform.
    public var deduplicationKey: String { "\(kind.rawValue):\(factID)" }
}
