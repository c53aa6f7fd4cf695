import Attribution
import Counting
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
        // Where reads are round trips, the turn and the install go with the batch's BEGIN. One not
        // found then fails the batch's first run, and the run after it, a write at a time, reads
        // it again after the batch's earlier writes (an install stored just before).
        let key = event.install.key
        source.write(
            delivery: delivery, readingAhead: EventRepository.readsAhead(event), laneKey: key,
            { connection in
                // Another writer counting this install (an event, a payment, a user) waits: both
                // would count a first.
                try connection.takeTurn(on: event.install)
                // Resolved inside the transaction, with what counting the event needs of the
                // install's other events: one trip, and the install cannot vanish in between.
                let statement = EventRepository.installForEvent(event.install, withRevenue: event.revenue != nil)
                guard var install = try connection.queryOne(statement, event.name, key, event.projectID, map: EventRepository.install) else {
                    switch event.install {
                    case .id(let id): throw StoreError.notFound("no install \(id)")
                    case .instance(let instance): throw StoreError.notFound("unknown install_instance_id '\(instance)'")
                    }
                }
                // Read ahead of the transaction's earlier writes, the install misses what they stored of it.
                if let earlier = connection.storedEarlier(ofInstall: install.id) {
                    if let earliest = earlier.earliestByName[event.name] {
                        install.earliestOfName = min(install.earliestOfName ?? earliest, earliest)
                    }
                    install.fact.hasRevenueEvent = install.fact.hasRevenueEvent || earlier.hasRevenueEvent
                    install.fact.hasLivePayment = install.fact.hasLivePayment || earlier.hasLivePayment
                    install.fact.signedUp = install.fact.signedUp || earlier.signedUp
                }
                let chartedAt = ChartedTime.of(
                    occurredAt: event.occurredAt, installedAt: Timestamp(milliseconds: install.fact.createdAt), receivedAt: event.receivedAt)
                if let contentKey = event.contentKey,
                    let existing = try connection.queryOne(
                        EventRepository.sameContent, install.id, event.occurredAt.milliseconds, contentKey, map: { $0.string(0) })
                {
                    return (existing, true, try SKANStore.evaluate(installID: install.id, context: skan, now: event.receivedAt, connection))
                }
                let fact = EventFact(at: chartedAt.milliseconds, name: event.name, currency: event.currency, revenue: event.revenue)
                // Sent without waiting where a batch allows it: a plain INSERT, refused (so the batch
                // runs again, answered) where the client's event id is taken.
                let inserted = try connection.run(
                    EventRepository.insertUnlessKnown, orUnanswered: EventRepository.insert,
                    eventID, event.projectID, install.id, event.name, event.clientEventID, event.contentKey, event.userID ?? install.userID,
                    event.data, event.revenue, event.currency, event.occurredAt.milliseconds, event.receivedAt.milliseconds, chartedAt.milliseconds)
                if inserted > 0 {
                    if event.revenue != nil, !install.fact.hasRevenueEvent {
                        try connection.run(RollupFacts.markRevenueEvent, install.id)
                    }
                    let history = try install.history(of: fact, connection)
                    try connection.count(Counting.eventAdded(fact, to: install.fact, history: history))
                    // Later events of this install in the batch add this one to what they read ahead.
                    var stored = StoredEarlier()
                    stored.earliestByName[event.name] = fact.at
                    stored.hasRevenueEvent = event.revenue != nil
                    stored.signedUp = event.name == Counting.signupEventName
                    connection.noteStored(stored, ofInstall: install.id)
                }
                if let consent = event.consent {
                    // Consent told with an event is the install's from then on (before its jobs are written).
                    try AdPlatformRepository.mergeReported(consent: consent, signals: nil, installID: install.id, connection)
                }
                let values = try SKANStore.evaluate(installID: install.id, context: skan, now: event.receivedAt, connection)
                if inserted > 0 {
                    // A test install's events are not counted nor sent.
                    try OutboxRepository.notify(
                        install.fact.isTest ? nil : notify,
                        StoredEvent(eventID: eventID, installID: install.id, userID: event.userID ?? install.userID),
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
    /// An install as an event of it is stored and counted: its id and user, its counted row
    /// (`RollupFacts`; its payment and revenue flags only for an event with revenue, the one kind
    /// that can make it pay), and the earliest charted time of its events named as this one.
    struct Install {
        var id: String
        var userID: String?
        var fact: InstallFact
        var earliestOfName: Int64?

        /// What `Counting.eventAdded` reads of the other events, for this one just stored, with
        /// the event noted in the install's marks (`EventMarks`): whether it is the first of its
        /// name, and (on the days cohorts show as active) whether another was on its day.
        func history(of event: EventFact, _ connection: some StoreSession) throws -> EventHistory {
            // Nothing reads its answer, and it cannot be refused: sent without waiting where a batch allows.
            if earliestOfName.map({ event.at < $0 }) ?? true { try connection.runUnanswered(EventMarks.noteName, id, event.name, event.at) }
            let day = (event.at - fact.createdAt) / 86_400_000
            var other = false
            if event.at >= fact.createdAt, EventTallies.activeDays.contains(day) {
                other = try connection.run(EventMarks.noteActiveDay, id, day) == 0
            }
            return EventHistory(earliestOtherOfName: earliestOfName, otherOnItsDay: other)
        }
    }

    static func install(_ row: some ColumnReader) -> Install {
        Install(
            id: row.string(0), userID: row.optionalString(1), fact: RollupFacts.install(flaggedRow: row, offset: 2),
            earliestOfName: row.optionalInt(18))
    }

    /// Parameters: the event's name, the install's id (or instance id), the project.
    static func installForEvent(_ install: EventRecord.InstallReference, withRevenue: Bool) -> String {
        switch (install, withRevenue) {
        case (.id, false): installByID
        case (.id, true): installByIDWithFlags
        case (.instance, false): installByInstance
        case (.instance, true): installByInstanceWithFlags
        }
    }

    private static func installFor(_ condition: String, flags: Bool) -> String {
        """
        SELECT i.id, i.user_id, \(RollupFacts.installCounterColumns), \(flags ? RollupFacts.installFlagsForRevenueEvent : "FALSE, FALSE"),
            \(EventMarks.earliestOfName)
        FROM installs i WHERE \(condition) AND i.project_id = ?
        """
    }

    static let installByID = installFor("i.id = ?", flags: false)
    static let installByIDWithFlags = installFor("i.id = ?", flags: true)
    static let installByInstance = installFor("i.install_instance_id = ?", flags: false)
    static let installByInstanceWithFlags = installFor("i.install_instance_id = ?", flags: true)

    static let insert = """
        INSERT INTO events (id, project_id, install_id, name, client_event_id, content_key, user_id, data, revenue, currency,
            occurred_at, received_at, charted_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertUnlessKnown = insert + " ON CONFLICT (project_id, client_event_id) WHERE client_event_id IS NOT NULL DO NOTHING"

    /// What an event's transaction reads first on PostgreSQL, sent with its batch's BEGIN: its
    /// turn and its install. (Not the same content's event: read at the batch's start, it would
    /// miss the same event earlier in the batch, which the read in its place sees.)
    static func readsAhead(_ event: EventRecord) -> [(sql: String, values: [SQLValue])] {
        let key = event.install.key
        return [
            (ScriptSQL.takeTurn(event.install), [.text(key), .text(key)]),
            (installForEvent(event.install, withRevenue: event.revenue != nil), [.text(event.name), .text(key), .text(event.projectID)]),
        ]
    }

    /// One seek in `events_by_install (install_id, occurred_at, content_key)`, which every event
    /// has an entry in anyway (migration 0007).
    static let sameContent = "SELECT id FROM events WHERE install_id = ? AND occurred_at = ? AND content_key = ? LIMIT 1"
}
