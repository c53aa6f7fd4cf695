public import Attribution
import JSON
public import Store

/// What an install's user does after `init`: events, identity, payments, install fields, and
/// the SKAN conversion values they move.
public struct ActivityService: Sendable {
    let store: any StoreBackend
    let skanSchemas: SKANSchemaCache
    let clocks: ProjectClocks
    let webhooks: WebhookEvents

    /// Stores the event once per client event id; `completion` gets the stored id, whether it
    /// was a repeat, and the install's SKAN values when asked for. A new event's `event.created`
    /// webhooks are written in its transaction.
    public func recordEvent(_ event: EventRecord, project: Project?, conversionValues: Bool, delivery: DatabaseWriter.Delivery?,
                            completion: @escaping @Sendable (Result<(eventID: String, duplicate: Bool, skan: SKANValues?), any Error>) -> Void) throws {
        let skan = conversionValues ? project.flatMap { skanSchemas.context(for: $0) } : nil
        let subscribers = try webhooks.subscribers(of: .eventCreated, projectID: event.projectID)
        let notify: Notifier<StoredEvent>? = subscribers.isEmpty ? nil : { @Sendable stored in
            WebhookEvents.messages(.eventCreated, data: WebhookEvents.event(event, stored: stored), projectID: event.projectID,
                                   at: event.receivedAt, to: subscribers)
        }
        store.events.record(event, eventID: TimeOrderedID.secure(at: event.receivedAt), skan: skan, notify: notify, delivery: delivery,
                            completion: completion)
    }

    /// Links the user to the install; a trigger (signup/login) also counts as the event `signup`.
    @discardableResult
    public func saveUser(_ user: UserProfile, install: StoredInstall, project: Project, signupEvent: Bool = false) throws -> SKANValues? {
        let now = clocks.clock(for: project).now()
        let notify = WebhookEvents.messages(.userIdentified, data: WebhookEvents.user(user, installID: install.id), projectID: project.id,
                                            at: now, to: try webhooks.subscribers(of: .userIdentified, projectID: project.id))
        return try store.users.saveUser(user, projectID: project.id, installID: install.id, now: now,
                                        signupEvent: signupEvent, skan: skanSchemas.context(for: project), notify: notify)
    }

    /// The install's SKAN values now (nil when the project has no schema).
    public func conversionValues(installID: String, project: Project) throws -> SKANValues? {
        try store.users.skanValues(installID: installID, now: clocks.clock(for: project).now(), skan: skanSchemas.context(for: project))
    }

    public func updateInstall(_ installID: String, pushToken: String? = nil, integrations: String? = nil,
                              userID: String? = nil, deeplinkOpenedAt: Timestamp? = nil) throws {
        try store.users.updateInstall(installID, pushToken: pushToken, integrations: integrations, userID: userID,
                                      deeplinkOpenedAt: deeplinkOpenedAt)
    }

    /// Stores the payment once per payment id.
    public func capturePayment(_ payment: PaymentRecord, install: StoredInstall, project: Project, delivery: DatabaseWriter.Delivery?,
                               completion: @escaping @Sendable (Result<(duplicate: Bool, skan: SKANValues?), any Error>) -> Void) throws {
        let now = clocks.clock(for: project).now()
        let notify = WebhookEvents.messages(.paymentCaptured, data: WebhookEvents.payment(payment, installID: install.id),
                                            projectID: project.id, at: now,
                                            to: try webhooks.subscribers(of: .paymentCaptured, projectID: project.id))
        store.users.capturePayment(payment, projectID: project.id, installID: install.id, now: now,
                                   skan: skanSchemas.context(for: project), notify: notify, delivery: delivery, completion: completion)
    }

    /// Removes the user's payments on the install (one, when `paymentID` is given); how many.
    public func removePayments(install: StoredInstall, project: Project, userID: String, paymentID: String?) throws -> Int {
        let now = clocks.clock(for: project).now()
        var data: [String: JSONValue] = ["install_id": .string(install.id), "user_id": .string(userID)]
        data["payment_id"] = paymentID.map(JSONValue.string) ?? .null
        let notify = WebhookEvents.messages(.paymentRemoved, data: data, projectID: project.id, at: now,
                                            to: try webhooks.subscribers(of: .paymentRemoved, projectID: project.id))
        return try store.users.removePayments(projectID: project.id, installID: install.id, userID: userID, paymentID: paymentID,
                                              now: now, notify: notify)
    }
}
