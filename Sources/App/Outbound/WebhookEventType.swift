/// The event types a webhook endpoint can subscribe to (outbound.md, "Webhooks").
public enum WebhookEventType: String, Sendable, CaseIterable {
    case installCreated = "install.created"
    case installAttributed = "install.attributed"
    /// The click that would have won a new install was refused by a fraud rule (docs/traffic-quality.md).
    case installRejected = "install.rejected"
    case userIdentified = "user.identified"
    case eventCreated = "event.created"
    case paymentCaptured = "payment.captured"
    case paymentRemoved = "payment.removed"
    case skanUpdated = "skan.updated"
    /// A verified copy of Apple's SKAdNetwork or AdAttributionKit postback arrived.
    case skanPostbackReceived = "skan.postback.received"
    /// Sent by `POST …/webhooks/{id}/test` only.
    case test = "webhook.test"
}
