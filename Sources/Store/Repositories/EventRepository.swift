import Attribution
import Foundation
import JSON
import SQLValues
import StoreContracts

/// Events on either backend (`SessionSource`).
struct Events<Source: SessionSource>: EventStore {
    let source: Source

    /// Stores the event, committed before `completion` runs: its id, and whether it was already
    /// stored. `StoreError.notFound` when the project has no such install.
    public func record(
        _ event: EventRecord, eventID: String, skan: SKANStore.Context? = nil, notify: Notifier<StoredEvent>? = nil,
        delivery: WriteDelivery? = nil,
        completion: @escaping @Sendable (Result<(eventID: String, duplicate: Bool, skan: SKANValues?), any Error>) -> Void
    ) {
        // On PostgreSQL the install is read with the batch's BEGIN. One not found then fails the
        // batch's first run, and the run after it, a write at a time, reads it again after the
        // batch's earlier writes (an install stored just before).
        let ahead = Source.Session.statementsAreRoundTrips ? EventRepository.readsAhead(event) : []
        let key =
            switch event.install {
            case .id(let id): id
            case .instance(let instance): instance
            }
        source.write(
            delivery: delivery, readingAhead: ahead, laneKey: key,
            { connection in
                // Resolved inside the transaction: one trip, and the install cannot vanish in between.
                let found: (id: String, userID: String?, rollupLink: String, createdAt: Timestamp, isTest: Bool)?
                switch event.install {
                case .id(let id):
                    found = try connection.queryOne(EventRepository.installByID, id, event.projectID) {
                        ($0.string(0), $0.optionalString(1), $0.string(2), Timestamp(milliseconds: $0.int(3)), $0.bool(4))
                    }
                    guard found != nil else { throw StoreError.notFound("no install \(id)") }
                case .instance(let instance):
                    found = try connection.queryOne(EventRepository.installByInstance, instance, event.projectID) {
                        ($0.string(0), $0.optionalString(1), $0.string(2), Timestamp(milliseconds: $0.int(3)), $0.bool(4))
                    }
                    guard found != nil else {
                        throw StoreError.notFound("unknown install_instance_id '\(instance)'")
                    }
                }
                let install = found!
                let chartedAt = ChartedTime.of(occurredAt: event.occurredAt, installedAt: install.createdAt, receivedAt: event.receivedAt)
                if let contentKey = event.contentKey,
                    let existing = try connection.queryOne(
                        EventRepository.sameContent, install.id, event.occurredAt.milliseconds, contentKey, map: { $0.string(0) })
                {
                    return (existing, true, try SKANStore.evaluate(installID: install.id, context: skan, now: event.receivedAt, connection))
                }
                // On SQLite counted here rather than by rollup_event_insert (migration 0021), which
                // steps aside; PostgreSQL's trigger counts every event (postgres/0003).
                let collector = (connection as? SQLiteConnection)?.rollupCollector
                collector?.countedByCaller = true
                defer { collector?.countedByCaller = false }
                // Sent without waiting where a batch allows it: a plain INSERT, refused (so the batch
                // runs again, answered) where the client's event id is taken.
                let inserted = try connection.run(
                    EventRepository.insertUnlessKnown, orUnanswered: EventRepository.insert,
                    eventID, event.projectID, install.id, event.name, event.clientEventID, event.contentKey, event.userID ?? install.userID,
                    event.data, event.revenue, event.currency, event.occurredAt.milliseconds, event.receivedAt.milliseconds, chartedAt.milliseconds)
                if inserted > 0, !install.isTest {
                    collector?.addEvent(
                        projectID: event.projectID, at: chartedAt.milliseconds, linkID: install.rollupLink,
                        revenue: event.revenue, currency: event.currency)
                }
                let values = try SKANStore.evaluate(installID: install.id, context: skan, now: event.receivedAt, connection)
                if inserted > 0 {
                    // A test install's events are not counted (its rollup triggers step aside) nor sent.
                    try OutboxRepository.notify(
                        install.isTest ? nil : notify, StoredEvent(eventID: eventID, installID: install.id, userID: event.userID ?? install.userID),
                        installID: install.id, connection)
                    return (eventID, false, values)
                }
                let existing = try connection.queryOne(
                    "SELECT id FROM events WHERE project_id = ? AND client_event_id = ?",
                    event.projectID, event.clientEventID
                ) { $0.string(0) }
                return (existing ?? eventID, true, values)
            }, completion: completion)
    }
}

extension Events where Source == Database {
    init(database: Database) { self.init(source: database) }
}

/// The events' SQL, for both backends.
enum EventRepository {
    /// The install, and the link its events are counted under in the rollups (migration 0015:
    /// '' unless attributed to a link).
    static let installByID = """
        SELECT id, user_id, CASE WHEN attributed AND link_id IS NOT NULL THEN link_id ELSE '' END, created_at, is_test FROM installs WHERE id = ? AND project_id = ?
        """
    static let installByInstance = """
        SELECT id, user_id, CASE WHEN attributed AND link_id IS NOT NULL THEN link_id ELSE '' END, created_at, is_test FROM installs
        WHERE install_instance_id = ? AND project_id = ?
        """
    static let insert = """
        INSERT INTO events (id, project_id, install_id, name, client_event_id, content_key, user_id, data, revenue, currency,
            occurred_at, received_at, charted_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertUnlessKnown = insert + " ON CONFLICT (project_id, client_event_id) WHERE client_event_id IS NOT NULL DO NOTHING"

    /// What an event's transaction reads first on PostgreSQL, sent with its batch's BEGIN: its
    /// install. (Not the same content's event: read at the batch's start, it would miss the same
    /// event earlier in the batch, which the read in its place sees.)
    static func readsAhead(_ event: EventRecord) -> [(sql: String, values: [SQLValue])] {
        switch event.install {
        case .id(let id): [(installByID, [.text(id), .text(event.projectID)])]
        case .instance(let instance): [(installByInstance, [.text(instance), .text(event.projectID)])]
        }
    }

    /// One seek in `events_by_install (install_id, occurred_at, content_key)`, which every event
    /// has an entry in anyway (migration 0007).
    static let sameContent = "SELECT id FROM events WHERE install_id = ? AND occurred_at = ? AND content_key = ? LIMIT 1"
}
