public import Attribution
public import Store

/// What an install's user does after `init`: events, identity, payments, install fields, and
/// the SKAN conversion values they move.
public struct ActivityService: Sendable {
    let store: any StoreBackend
    let skanSchemas: SKANSchemaCache
    let clocks: ProjectClocks

    /// Stores the event once per client event id; `completion` gets the stored id, whether it
    /// was a repeat, and the install's SKAN values when asked for.
    public func recordEvent(_ event: EventRecord, project: Project?, conversionValues: Bool, delivery: DatabaseWriter.Delivery?,
                            completion: @escaping @Sendable (Result<(eventID: String, duplicate: Bool, skan: SKANValues?), any Error>) -> Void) {
        let skan = conversionValues ? project.flatMap { skanSchemas.context(for: $0) } : nil
        store.events.record(event, eventID: TimeOrderedID.secure(at: event.receivedAt), skan: skan, delivery: delivery, completion: completion)
    }

    /// Links the user to the install; a trigger (signup/login) also counts as the event `signup`.
    @discardableResult
    public func saveUser(_ user: UserProfile, install: StoredInstall, project: Project, signupEvent: Bool = false) throws -> SKANValues? {
        try store.users.saveUser(user, projectID: project.id, installID: install.id, now: clocks.clock(for: project).now(),
                                 signupEvent: signupEvent, skan: skanSchemas.context(for: project))
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
                               completion: @escaping @Sendable (Result<(duplicate: Bool, skan: SKANValues?), any Error>) -> Void) {
        store.users.capturePayment(payment, projectID: project.id, installID: install.id, now: clocks.clock(for: project).now(),
                                   skan: skanSchemas.context(for: project), delivery: delivery, completion: completion)
    }

    /// Removes the user's payments on the install (one, when `paymentID` is given); how many.
    public func removePayments(install: StoredInstall, project: Project, userID: String, paymentID: String?) throws -> Int {
        try store.users.removePayments(projectID: project.id, installID: install.id, userID: userID, paymentID: paymentID,
                                       now: clocks.clock(for: project).now())
    }
}
