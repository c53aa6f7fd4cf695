public import Attribution
import Cryptography
import JSON
public import StoreContracts

/// What an install's user does after `init`: events, identity, payments, install fields, and
/// the SKAN conversion values they move.
public struct ActivityService: Sendable {
    let store: any StoreBackend
    let skanSchemas: SKANSchemaCache
    let clocks: ProjectClocks
    let outbound: OutboundMessages

    /// Stores the event once per client event id; `completion` gets the stored id, whether it
    /// was a repeat, and the install's SKAN values when asked for. A new event's `event.created`
    /// webhooks are written in its transaction, or, where the stored events are the outbox's log,
    /// made from its row by the outbox worker (`OutboxLogJobs`).
    public func recordEvent(
        _ event: EventRecord, project: Project?, conversionValues: Bool, delivery: WriteDelivery?,
        completion: @escaping @Sendable (Result<(eventID: String, duplicate: Bool, skan: SKANValues?), any Error>) -> Void
    ) throws {
        let skan = conversionValues ? try project.flatMap { try outbound.skanContext(skanSchemas, project: $0, at: event.receivedAt) } : nil
        // Where the stored events are the outbox's log, their ad-platform jobs are made from it.
        var conversion: (@Sendable (StoredEvent) -> AdConversion?)? = nil
        if !store.outbox.factsAreALog {
            conversion = { stored in
                AdConversion(
                    kind: .event, name: event.name, factID: stored.eventID, revenue: event.revenue, currency: event.currency,
                    occurredAt: event.occurredAt.milliseconds)
            }
        }
        // The event's own fields are made here, and only when someone listens: the notifier runs on the writer.
        let notify: Notifier<StoredEvent>? = try outbound.notifier(
            .eventCreated, trigger: event.name, projectID: event.projectID, at: event.receivedAt,
            webhooks: !store.outbox.factsAreALog, prepare: { WebhookEvents.eventFieldsJSON(event) },
            appendData: { stored, _, fields, body in WebhookEvents.appendEvent(fields, stored: stored, to: &body) },
            values: { stored in
                var values = ["event_name": event.name, "event_id": stored.eventID]
                if let revenue = event.revenue { values["revenue"] = PostbackMacros.number(revenue) }
                values["currency"] = event.currency
                return values
            },
            conversion: conversion)
        store.events.record(
            event, eventID: TimeOrderedID.secure(at: event.receivedAt), skan: skan, notify: notify, delivery: delivery,
            completion: completion)
    }

    /// Links the user to the install; a trigger (signup/login) also counts as the event `signup`.
    @discardableResult
    public func saveUser(_ user: UserProfile, install: StoredInstall, project: Project, signupEvent: Bool = false) throws -> SKANValues? {
        let now = clocks.clock(for: project).now()
        // A sign-up is the platforms' registration, keyed by the install: a repeated trigger is one there.
        let installID = install.id
        var registration: (@Sendable (UserProfile) -> AdConversion?)? = nil
        if signupEvent {
            registration = { _ in AdConversion(kind: .event, name: "signup", factID: "signup-" + installID, occurredAt: now.milliseconds) }
        }
        let notify: Notifier<UserProfile>? =
            install.isTest
            ? nil
            : try outbound.notifier(
                .userIdentified, trigger: nil, projectID: project.id, at: now,
                data: { user, install in WebhookEvents.user(user, installID: install.installID) },
                conversion: registration)
        return try store.users.saveUser(
            user, projectID: project.id, installID: install.id, now: now,
            signupEvent: signupEvent, skan: try outbound.skanContext(skanSchemas, project: project, at: now),
            notify: notify)
    }

    /// The install's SKAN values now (nil when the project has no schema).
    public func conversionValues(installID: String, project: Project) throws -> SKANValues? {
        let now = clocks.clock(for: project).now()
        return try store.users.skanValues(installID: installID, now: now, skan: try outbound.skanContext(skanSchemas, project: project, at: now))
    }

    public func updateInstall(
        _ installID: String, pushToken: String? = nil, integrations: String? = nil,
        userID: String? = nil, deeplinkOpenedAt: Timestamp? = nil
    ) throws {
        try store.users.updateInstall(
            installID, pushToken: pushToken, integrations: integrations, userID: userID,
            deeplinkOpenedAt: deeplinkOpenedAt)
    }

    /// Stores the payment once per payment id.
    public func capturePayment(
        _ payment: PaymentRecord, install: StoredInstall, project: Project, delivery: WriteDelivery?,
        completion: @escaping @Sendable (Result<(duplicate: Bool, skan: SKANValues?), any Error>) -> Void
    ) throws {
        let now = clocks.clock(for: project).now()
        let notify: Notifier<PaymentRecord>? =
            install.isTest
            ? nil
            : try outbound.notifier(
                .paymentCaptured, trigger: "payment", projectID: project.id, at: now,
                data: { payment, install in WebhookEvents.payment(payment, installID: install.installID) },
                values: { payment in
                    [
                        "event_name": "payment", "event_id": payment.paymentID, "revenue": PostbackMacros.number(payment.amount),
                        "currency": payment.currency,
                    ]
                },
                conversion: { payment in
                    // A payment the app says did not go through is no purchase to a platform.
                    guard !["PAYMENT_FAILED", "PAYMENT_CANCELLED", "PAYMENT_INITIATED"].contains(payment.status.uppercased()) else { return nil }
                    return AdConversion(
                        kind: .payment, name: "payment", factID: payment.paymentID, revenue: payment.amount, currency: payment.currency,
                        occurredAt: now.milliseconds)
                })
        // Test traffic keeps its payment ids apart: a debug build's `payment_123` never blocks the
        // live app's (payment ids are unique per project).
        var payment = payment
        payment.paymentID = TestTraffic.paymentID(payment.paymentID, isTest: install.isTest)
        store.users.capturePayment(
            payment, projectID: project.id, installID: install.id, now: now,
            skan: try outbound.skanContext(skanSchemas, project: project, at: now), notify: notify,
            delivery: delivery, completion: completion)
    }

    /// Removes the user's payments on the install (one, when `paymentID` is given); how many.
    public func removePayments(install: StoredInstall, project: Project, userID: String, paymentID: String?) throws -> Int {
        let now = clocks.clock(for: project).now()
        let notify: Notifier<Int>? =
            install.isTest
            ? nil
            : try outbound.notifier(
                .paymentRemoved, trigger: nil, projectID: project.id, at: now,
                data: { removed, install in
                    [
                        "install_id": .string(install.installID), "user_id": .string(userID),
                        "payment_id": paymentID.map(JSONValue.string) ?? .null, "removed": .number(Double(removed)),
                    ]
                })
        return try store.users.removePayments(
            projectID: project.id, installID: install.id, userID: userID,
            paymentID: paymentID.map { TestTraffic.paymentID($0, isTest: install.isTest) },
            now: now, notify: notify)
    }
}
