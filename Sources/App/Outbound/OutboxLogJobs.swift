import Attribution
import StoreContracts

/// The webhook and ad-platform jobs of facts read back from the store, where the stored events and
/// installs are the outbox's log (`OutboxStore.factsAreALog`): the jobs the fact's own transaction
/// would have written, for the endpoints that want the type and the platforms connected when the
/// facts are read. The request path then writes none of them (docs/ad-platforms/).
struct OutboxLogJobs: Sendable {
    let outbound: OutboundMessages
    let project: @Sendable (_ id: String) throws -> Project?

    /// `event.created`, and the event for each connected ad platform.
    func messages(for events: [LoggedEvent]) throws -> [OutboxMessage] {
        var subscribers = Subscribers(outbound: outbound, type: .eventCreated)
        var messages: [OutboxMessage] = []
        for event in events {
            let conversion = AdConversion(
                kind: .event, name: event.name, factID: event.id, revenue: event.revenue, currency: event.currency,
                occurredAt: event.occurredAt.milliseconds)
            messages += try subscribers.adPlatformJobs(conversion, projectID: event.projectID, installID: event.installID, at: event.receivedAt)
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

    /// `install.created`, and the install for each connected ad platform.
    func messages(for installs: [LoggedInstall]) throws -> [OutboxMessage] {
        var subscribers = Subscribers(outbound: outbound, type: .installCreated)
        var messages: [OutboxMessage] = []
        for logged in installs {
            let install = logged.outcome.install
            let conversion = AdConversion(kind: .install, name: "install", factID: install.id, occurredAt: install.createdAt.milliseconds)
            messages += try subscribers.adPlatformJobs(conversion, projectID: install.projectID, installID: install.id, at: install.createdAt)
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
        var platformsByProject: [String: [AdPlatform]] = [:]

        /// One job per connected platform of the project.
        mutating func adPlatformJobs(_ conversion: AdConversion, projectID: String, installID: String, at time: Timestamp) throws -> [OutboxMessage] {
            let platforms: [AdPlatform]
            if let known = platformsByProject[projectID] {
                platforms = known
            } else {
                platforms = try outbound.adPlatformConnections(projectID: projectID).map(\.platform)
                platformsByProject[projectID] = platforms
            }
            return platforms.map { platform in
                AdPlatformJob(platform: platform, conversion: conversion, installID: installID).message(projectID: projectID, at: time)
            }
        }

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
