import App
import Attribution
import HTTP
import StoreContracts

/// `{url, events?, enabled?}` of `POST …/webhooks` (all required but `url`) and `PATCH` (all optional).
struct WebhookPayload: Decodable {
    var url: String?
    var events: Patch<[String]> = .absent
    var enabled: Bool?

    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(["url", "events", "enabled"])
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        url = try container.decodeIfPresent(String.self, forKey: AnyCodingKey(stringValue: "url"))
        events = try container.decodePatch([String].self, forKey: AnyCodingKey(stringValue: "events"))
        enabled = try container.decodeIfPresent(Bool.self, forKey: AnyCodingKey(stringValue: "enabled"))
    }
}

/// An endpoint as the admin API shows it; the secret only when it was just made.
struct WebhookBody: Encodable {
    let id: String
    let url: String
    let events: [String]?
    let enabled: Bool
    let disabled_reason: String?
    let secret: String?
    let created_at: String
    let updated_at: String

    init(_ endpoint: WebhookEndpoint, showingSecret: Bool = false) {
        id = endpoint.id
        url = endpoint.url
        events = endpoint.events
        enabled = endpoint.enabled
        disabled_reason = endpoint.disabledReason
        secret = showingSecret ? endpoint.secret : nil
        created_at = endpoint.createdAt.iso8601
        updated_at = endpoint.updatedAt.iso8601
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: AnyCodingKey.self)
        func key(_ name: String) -> AnyCodingKey { AnyCodingKey(stringValue: name) }
        try c.encode(id, forKey: key("id"))
        try c.encode(url, forKey: key("url"))
        try c.encode(events, forKey: key("events"))  // null: every event type
        try c.encode(enabled, forKey: key("enabled"))
        try c.encode(disabled_reason, forKey: key("disabled_reason"))
        if let secret { try c.encode(secret, forKey: key("secret")) }
        try c.encode(created_at, forKey: key("created_at"))
        try c.encode(updated_at, forKey: key("updated_at"))
    }
}

/// One outbox job in the deliveries list.
struct DeliveryBody: Encodable {
    let id: String
    let kind: String
    let target: String
    let target_id: String?
    let event_id: String
    let event_type: String
    let status: String
    let attempts: Int
    let next_attempt_at: String?
    let last_status_code: Int?
    let last_error: String?
    let last_response: String?
    /// Ad platforms: the request as sent, credentials redacted.
    let last_request: String?
    let created_at: String
    let delivered_at: String?

    init(_ job: OutboxJob) {
        id = job.message.id
        kind = job.message.kind
        target = job.message.targetURL
        target_id = job.message.targetID
        event_id = job.message.eventID
        event_type = job.message.eventType
        status = job.status.rawValue
        attempts = job.attempts
        next_attempt_at = job.status == .pending ? job.nextAttemptAt.iso8601 : nil
        last_status_code = job.lastStatusCode
        last_error = job.lastError
        last_response = job.lastResponse
        last_request = job.lastRequest
        created_at = job.message.createdAt.iso8601
        delivered_at = job.deliveredAt?.iso8601
    }
}
