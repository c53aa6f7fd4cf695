public import Attribution
import Foundation

public struct EventRecord: Sendable {
    public var projectID: String
    public var installID: String
    public var name: String
    /// The client's key for this event; the same key again is the same event (stored once).
    public var clientEventID: String?
    public var userID: String?
    /// JSON object text.
    public var data: String?
    public var revenue: Double?
    public var currency: String?
    public var occurredAt: Timestamp
    public var receivedAt: Timestamp

    public init(projectID: String, installID: String, name: String, clientEventID: String? = nil, userID: String? = nil,
                data: String? = nil, revenue: Double? = nil, currency: String? = nil, occurredAt: Timestamp, receivedAt: Timestamp) {
        self.projectID = projectID
        self.installID = installID
        self.name = name
        self.clientEventID = clientEventID
        self.userID = userID
        self.data = data
        self.revenue = revenue
        self.currency = currency
        self.occurredAt = occurredAt
        self.receivedAt = receivedAt
    }
}

public struct EventRepository: Sendable {
    let database: Database

    public init(database: Database) { self.database = database }

    /// Stores the event, committed before `completion` runs: its id, and whether it was already
    /// stored. `StoreError.notFound` when the project has no such install.
    public func record(_ event: EventRecord, eventID: String,
                       completion: @escaping @Sendable (Result<(eventID: String, duplicate: Bool), any Error>) -> Void) {
        database.write({ connection in
            guard try connection.queryOne("SELECT 1 FROM installs WHERE id = ? AND project_id = ?", event.installID, event.projectID,
                                          map: { _ in true }) != nil else {
                throw StoreError.notFound("no install \(event.installID)")
            }
            let inserted = try connection.run("""
                INSERT INTO events (id, project_id, install_id, name, client_event_id, user_id, data, revenue, currency, occurred_at, received_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (project_id, client_event_id) WHERE client_event_id IS NOT NULL DO NOTHING
                """, eventID, event.projectID, event.installID, event.name, event.clientEventID, event.userID, event.data, event.revenue,
                event.currency, event.occurredAt.milliseconds, event.receivedAt.milliseconds)
            if inserted > 0 { return (eventID, false) }
            let existing = try connection.queryOne("SELECT id FROM events WHERE project_id = ? AND client_event_id = ?",
                                                   event.projectID, event.clientEventID) { $0.string(0) }
            return (existing ?? eventID, true)
        }, completion: completion)
    }
}
