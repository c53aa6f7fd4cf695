import Attribution
import StoreContracts

/// The webhook jobs of facts read back from the store, where the stored events and installs are
/// the outbox's log (`OutboxStore.factsAreALog`): the bodies the fact's own transaction would
/// have written, for the endpoints that want the type when the facts are read.
struct OutboxLogJobs: Sendable {
    let outbound: OutboundMessages
    let project: @Sendable (_ id: String) throws -> Project?

    /// `event.created`.
    func messages(for events: [LoggedEvent]) throws -> [OutboxMessage] {
        var subscribers = Subscribers(outbound: outbound, type: .eventCreated)
        var messages: [OutboxMessage] = []
        for event in events {
            let endpoints = try subscribers.of(event.projectID)
            guard !endpoints.isEmpty else { continue }
            let fields = WebhookEvents.eventFieldsJSON(event)
            let stored = StoredEvent(eventID: event.id, installID: event.installID, userID: event.userID)
            let webhooks = WebhookEvents.Prepared(.eventCreated, projectID: event.projectID, at: event.receivedAt, to: endpoints)
            messages += webhooks.messages(appendingData: { WebhookEvents.appendEvent(fields, stored: stored, to: &$0) })
                .map { $0.about(install: event.installID) }
        }
        return messages
    }

    /// `install.created`.
    func messages(for installs: [LoggedInstall]) throws -> [OutboxMessage] {
        var subscribers = Subscribers(outbound: outbound, type: .installCreated)
        var messages: [OutboxMessage] = []
        for logged in installs {
            let install = logged.outcome.install
            let endpoints = try subscribers.of(install.projectID)
            guard !endpoints.isEmpty, let project = try project(install.projectID) else { continue }
            let webhooks = WebhookEvents.Prepared(.installCreated, projectID: install.projectID, at: install.createdAt, to: endpoints)
            messages += webhooks.messages(appendingData: {
                WebhookEvents.appendInstall(logged.outcome, project: project, networkClickID: logged.networkClickID, to: &$0)
            }).map { $0.about(install: install.id) }
        }
        return messages
    }

    /// The endpoints of each project that want one type, looked up once per project and batch.
    private struct Subscribers {
        let outbound: OutboundMessages
        let type: WebhookEventType
        var byProject: [String: [WebhookEndpoint]] = [:]

        mutating func of(_ projectID: String) throws -> [WebhookEndpoint] {
            if let known = byProject[projectID] { return known }
            let endpoints = try outbound.subscribers(of: type, projectID: projectID)
            byProject[projectID] = endpoints
            return endpoints
        }
    }
}

private extension OutboxMessage {
    func about(install installID: String) -> OutboxMessage {
        var message = self
        message.installID = installID
        return message
    }
}
