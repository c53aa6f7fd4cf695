public import Attribution
import Cryptography
import Foundation
import JSON
public import StoreContracts

/// Webhook endpoints and their deliveries (outbound.md, admin API): creation with a secret shown
/// once, changes, rotation with the old secret signing for 24 h more, a test event, the
/// deliveries list and replays.
public struct WebhookService: Sendable {
    let store: any StoreBackend
    let clock: any Clock
    let policy: OutboundAddressPolicy
    /// How long a rotated-out secret still signs.
    static let rotationOverlapSeconds: Int64 = 24 * 3600

    /// What a client may set on an endpoint; nil leaves a field as it is.
    public struct Changes: Sendable {
        public var url: String?
        /// `.some(nil)`: every event type.
        public var events: [String]??
        public var enabled: Bool?

        public init(url: String? = nil, events: [String]?? = nil, enabled: Bool? = nil) {
            self.url = url
            self.events = events
            self.enabled = enabled
        }
    }

    public func create(projectID: String, url: String, events: [String]?, enabled: Bool = true) throws -> WebhookEndpoint {
        try validate(url: url, events: events)
        let now = clock.now()
        let endpoint = WebhookEndpoint(
            id: "we_" + TimeOrderedID.secure(at: now).replacingOccurrences(of: "-", with: ""), projectID: projectID,
            url: url, events: events, enabled: enabled, secret: WebhookSignature.newSecret(),
            createdAt: now, updatedAt: now)
        try store.outbox.createEndpoint(endpoint)
        return endpoint
    }

    public func list(projectID: String) throws -> [WebhookEndpoint] { try store.outbox.endpoints(projectID: projectID) }

    public func existing(id: String, projectID: String) throws -> WebhookEndpoint {
        guard let endpoint = try store.outbox.endpoint(id: id, projectID: projectID) else {
            throw AppError.notFound("project \(projectID) has no webhook endpoint \(id)")
        }
        return endpoint
    }

    public func update(id: String, projectID: String, changes: Changes) throws -> WebhookEndpoint {
        var endpoint = try existing(id: id, projectID: projectID)
        if let url = changes.url { endpoint.url = url }
        if let events = changes.events { endpoint.events = events }
        if let enabled = changes.enabled {
            endpoint.enabled = enabled
            if enabled { endpoint.disabledReason = nil }
        }
        try validate(url: endpoint.url, events: endpoint.events)
        endpoint.updatedAt = clock.now()
        guard try store.outbox.updateEndpoint(endpoint) else { throw AppError.notFound("project \(projectID) has no webhook endpoint \(id)") }
        return endpoint
    }

    public func delete(id: String, projectID: String) throws {
        guard try store.outbox.deleteEndpoint(id: id, projectID: projectID) else {
            throw AppError.notFound("project \(projectID) has no webhook endpoint \(id)")
        }
    }

    /// A new secret (returned once); the old one keeps signing for 24 hours.
    public func rotateSecret(id: String, projectID: String) throws -> WebhookEndpoint {
        var endpoint = try existing(id: id, projectID: projectID)
        let now = clock.now()
        endpoint.previousSecret = endpoint.secret
        endpoint.previousSecretUntil = now.adding(seconds: Self.rotationOverlapSeconds)
        endpoint.secret = WebhookSignature.newSecret()
        endpoint.updatedAt = now
        _ = try store.outbox.updateEndpoint(endpoint)
        return endpoint
    }

    /// Queues a `webhook.test` event for this endpoint alone (even when its filter leaves the
    /// type out); returns the delivery.
    public func sendTest(id: String, projectID: String) throws -> OutboxMessage {
        let endpoint = try existing(id: id, projectID: projectID)
        let now = clock.now()
        let message = WebhookEvents.messages(
            .test, data: ["endpoint_id": .string(endpoint.id), "project_id": .string(projectID)],
            projectID: projectID, at: now,
            to: [
                WebhookEndpoint(
                    id: endpoint.id, projectID: projectID, url: endpoint.url, events: nil, enabled: true,
                    secret: endpoint.secret, createdAt: endpoint.createdAt, updatedAt: endpoint.updatedAt)
            ])[0]
        try store.outbox.enqueue([message])
        return message
    }

    public func deliveries(projectID: String, status: OutboxJob.Status?, kind: String?, since: Timestamp?, limit: Int) throws -> [OutboxJob] {
        try store.outbox.jobs(projectID: projectID, status: status, kind: kind, since: since, limit: limit)
    }

    /// The newest deliveries about one install (its page).
    public func deliveries(projectID: String, installID: String, limit: Int) throws -> [OutboxJob] {
        try store.outbox.jobs(projectID: projectID, installID: installID, limit: limit)
    }

    /// One delivery with its request and last answer.
    public func delivery(id: String, projectID: String) throws -> OutboxJob {
        guard let job = try store.outbox.job(id: id, projectID: projectID) else {
            throw AppError.notFound("project \(projectID) has no delivery \(id)")
        }
        return job
    }

    public func replay(deliveryID: String, projectID: String) throws {
        guard try store.outbox.replay(jobID: deliveryID, projectID: projectID, now: clock.now()) else {
            throw AppError.notFound("project \(projectID) has no delivery \(deliveryID)")
        }
    }

    /// Every delivery of `status` since `since`, due again now; how many.
    public func replay(projectID: String, status: OutboxJob.Status, since: Timestamp) throws -> Int {
        try store.outbox.replay(projectID: projectID, status: status, since: since, now: clock.now())
    }

    /// Jobs not delivered, by kind and status (all projects), for /metrics.
    public func backlog() throws -> [OutboxBacklog] { try store.outbox.backlog() }

    private func validate(url: String, events: [String]?) throws {
        var problems: [ValidationProblem] = []
        if url.count > 2048 {
            problems.append(ValidationProblem("url", "must be at most 2048 characters"))
        } else if let refusal = policy.refusal(for: url) {
            problems.append(ValidationProblem("url", refusal))
        }
        if let events {
            let known = Set(WebhookEventType.allCases.filter { $0 != .test }.map(\.rawValue))
            if events.isEmpty { problems.append(ValidationProblem("events", "must name at least one event type, or be left out for all")) }
            if let unknown = events.first(where: { !known.contains($0) }) {
                problems.append(
                    ValidationProblem(
                        "events", "unknown event type '\(unknown.prefix(characters: 64))'; known: \(known.sorted().joined(separator: ", "))"))
            }
        }
        try AppError.throwIfAny(problems)
    }
}
