public import Attribution
public import JSON

public struct EventRecord: Sendable {
    /// How the event names its install: by id (LinkForty), or by the client's instance id (Linkrunner).
    public enum InstallReference: Sendable {
        case id(String)
        case instance(String)
    }

    public var projectID: String
    public var install: InstallReference
    public var name: String
    /// The client's key for this event; the same key again is the same event (stored once).
    public var clientEventID: String?
    /// A digest of the name and data, when an event of the same install, time and content as a
    /// stored one is that one, sent again (LinkForty SDKs re-send their offline queue and send no
    /// key of their own).
    public var contentKey: String?
    public var userID: String?
    /// JSON object text.
    public var data: String?
    /// The same data as the request's parser read it, when the API has it; `data` is then this
    /// value serialised by `JSONValue` (webhooks send that text on as it is).
    public var dataValue: [String: JSONValue]?
    public var revenue: Double?
    public var currency: String?
    public var occurredAt: Timestamp
    public var receivedAt: Timestamp
    /// Consent the client told with the event: the install's from then on.
    public var consent: Consent? = nil

    public init(
        projectID: String, install: InstallReference, name: String, clientEventID: String? = nil,
        contentKey: String? = nil, userID: String? = nil, data: String? = nil, revenue: Double? = nil,
        currency: String? = nil, occurredAt: Timestamp, receivedAt: Timestamp, dataValue: [String: JSONValue]? = nil
    ) {
        self.projectID = projectID
        self.install = install
        self.name = name
        self.clientEventID = clientEventID
        self.contentKey = contentKey
        self.userID = userID
        self.data = data
        self.dataValue = dataValue
        self.revenue = revenue
        self.currency = currency
        self.occurredAt = occurredAt
        self.receivedAt = receivedAt
    }
}
