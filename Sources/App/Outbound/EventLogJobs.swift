import Attribution
import Store

/// The `event.created` webhook jobs of events read back from the store, where the events are the
/// outbox's log (`OutboxStore.eventsAreALog`): the bodies the event's own transaction would have
/// written, for the endpoints that want the type when the events are read.
struct EventLogJobs: Sendable {
    let outbound: OutboundMessages

    func messages(for events: [LoggedEvent]) throws -> [OutboxMessage] {
        var messages: [OutboxMessage] = []
        var subscribersByProject: [String: [WebhookEndpoint]] = [:]
        for event in events {
            let subscribers: [WebhookEndpoint]
            if let known = subscribersByProject[event.projectID] {
                subscribers = known
            } else {
                subscribers = try outbound.subscribers(of: .eventCreated, projectID: event.projectID)
                subscribersByProject[event.projectID] = subscribers
            }
            guard !subscribers.isEmpty else { continue }
            let fields = WebhookEvents.eventFieldsJSON(event)
            let stored = StoredEvent(eventID: event.id, installID: event.installID, userID: event.userID)
            let webhooks = WebhookEvents.Prepared(.eventCreated, projectID: event.projectID, at: event.receivedAt, to: subscribers)
            for var message in webhooks.messages(appendingData: { WebhookEvents.appendEvent(fields, stored: stored, to: &$0) }) {
                message.installID = event.installID
                messages.append(message)
            }
        }
        return messages
    }
}
