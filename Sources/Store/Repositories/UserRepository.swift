import Attribution
import Counting
import Cryptography
import Foundation
import StoreContracts

/// What apps store beyond installs and events: the users linked to installs, their payments, and
/// the install's own columns (push token, integrations, deep link opened).
struct Users<Source: SessionSource>: UserStore {
    let source: Source

    /// The install registered under this install instance id, or nil.
    public func install(projectID: String, instanceID: String) throws -> StoredInstall? {
        try source.read { connection in
            guard
                let id = try connection.queryOne(
                    "SELECT id FROM installs WHERE project_id = ? AND install_instance_id = ?",
                    projectID, instanceID, map: { $0.string(0) })
            else { return nil }
            return try InstallRepository.find(id: id, projectID: projectID, connection)
        }
    }

    /// Links the user to the install (signup/login, set-user-data).
    /// - Parameter signupEvent: also store a `signup` event (a trigger counts as one for SKAN).
    @discardableResult
    public func saveUser(
        _ user: UserProfile, projectID: String, installID: String, now: Timestamp, signupEvent: Bool = false,
        skan: SKANStore.Context? = nil, notify: Notifier<UserProfile>? = nil
    ) throws -> SKANValues? {
        try source.writeSession { connection in
            try connection.run(
                """
                INSERT INTO users (project_id, user_id, install_id, name, email, phone, attributes, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (project_id, user_id) DO UPDATE SET install_id = excluded.install_id,
                    name = coalesce(excluded.name, users.name), email = coalesce(excluded.email, users.email),
                    phone = coalesce(excluded.phone, users.phone), attributes = coalesce(excluded.attributes, users.attributes),
                    updated_at = excluded.updated_at
                """, projectID, user.id, installID, user.name, user.email, user.phone, user.attributes, now.milliseconds, now.milliseconds)
            try CountedWrites.changingInstallRow(installID, connection) {
                try connection.run("UPDATE installs SET user_id = ? WHERE id = ?", user.id, installID)
            }
            if signupEvent,
                let install = try connection.queryOne(
                    EventRepository.installByID, Counting.signupEventName, installID, projectID, map: EventRepository.install)
            {
                let fact = EventFact(at: now.milliseconds, name: Counting.signupEventName, currency: nil, revenue: nil)
                try connection.run(
                    "INSERT INTO events (id, project_id, install_id, name, user_id, occurred_at, received_at, charted_at, recorded_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'trigger')",
                    TimeOrderedID.secure(at: now), projectID, installID, Counting.signupEventName, user.id, now.milliseconds, now.milliseconds,
                    now.milliseconds)
                let history = try install.history(of: fact, connection)
                try connection.count(Counting.eventAdded(fact, to: install.fact, history: history))
            }
            try OutboxRepository.notify(notify, user, installID: installID, connection)
            return try SKANStore.evaluate(installID: installID, context: skan, now: now, connection)
        }
    }

    /// SKAN values for the install now (for calls that change nothing SKAN counts).
    public func skanValues(installID: String, now: Timestamp, skan: SKANStore.Context?) throws -> SKANValues? {
        guard skan != nil else { return nil }
        return try source.writeSession { connection in try SKANStore.evaluate(installID: installID, context: skan, now: now, connection) }
    }

    /// Sets one of the install's own columns (push token, integrations, deep link opened).
    public func updateInstall(
        _ installID: String, pushToken: String? = nil, integrations: String? = nil,
        userID: String? = nil, deeplinkOpenedAt: Timestamp? = nil
    ) throws {
        try source.writeSession { connection in
            // A user set is counted (a signup); the other columns count nowhere.
            let update = {
                try connection.run(
                    """
                    UPDATE installs SET push_token = coalesce(?, push_token), integrations = coalesce(?, integrations),
                        user_id = coalesce(?, user_id), deeplink_opened_at = coalesce(?, deeplink_opened_at)
                    WHERE id = ?
                    """, pushToken, integrations, userID, deeplinkOpenedAt?.milliseconds, installID)
            }
            if userID != nil { try CountedWrites.changingInstallRow(installID, connection, update) } else { _ = try update() }
        }
    }

    /// Stores the payment once per `payment_id` (a retry, even a concurrent one, stores nothing new);
    /// returns whether it was already there.
    public func capturePayment(
        _ payment: PaymentRecord, projectID: String, installID: String, now: Timestamp, skan: SKANStore.Context? = nil,
        notify: Notifier<PaymentRecord>? = nil, delivery: WriteDelivery? = nil,
        completion: @escaping @Sendable (Result<(duplicate: Bool, skan: SKANValues?), any Error>) -> Void
    ) {
        source.write(
            delivery: delivery,
            { connection in
                try CountedWrites.takeTurn(onInstall: installID, connection)
                let install = try CountedWrites.install(installID, connection)
                let inserted = try connection.run(
                    """
                    INSERT INTO payments (id, project_id, install_id, payment_id, user_id, amount, currency, type, status, data, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (project_id, payment_id) DO NOTHING
                    """, TimeOrderedID.secure(at: now), projectID, installID, payment.paymentID, payment.userID, payment.amount,
                    payment.currency, payment.type, payment.status, payment.data, now.milliseconds)
                if inserted == 0 {
                    // A retry of this install's payment is a duplicate; another install's id is not
                    // this payment stored (it was answered 200 and nothing was kept).
                    let holder = try connection.queryOne(
                        "SELECT install_id FROM payments WHERE project_id = ? AND payment_id = ?", projectID, payment.paymentID
                    ) { $0.string(0) }
                    if let holder, holder != installID {
                        throw StoreError.conflict("payment_id '\(payment.paymentID.prefix(64))' is already recorded for another install")
                    }
                }
                if inserted > 0, let install {
                    var stored = StoredEarlier()
                    stored.hasLivePayment = true
                    connection.noteStored(stored, ofInstall: installID)
                    try connection.count(
                        Counting.paymentAdded(PaymentFact(at: now.milliseconds, currency: payment.currency, amount: payment.amount), to: install))
                }
                if inserted > 0 { try OutboxRepository.notify(notify, payment, installID: installID, connection) }
                return (inserted == 0, try SKANStore.evaluate(installID: installID, context: skan, now: now, connection))
            }, completion: completion)
    }

    /// Marks the user's payments on this install removed (kept for audit, out of revenue).
    public func removePayments(
        projectID: String, installID: String, userID: String, paymentID: String?, now: Timestamp,
        notify: Notifier<Int>? = nil
    ) throws -> Int {
        try source.writeSession { connection in
            try CountedWrites.takeTurn(onInstall: installID, connection)
            let install = try CountedWrites.install(installID, connection)
            let payments: [PaymentFact]
            let returning = " RETURNING created_at, currency, amount"
            let map = { (row: Source.Session.Reader) in PaymentFact(at: row.int(0), currency: row.string(1), amount: row.double(2)) }
            if let paymentID {
                payments = try connection.query(
                    """
                    UPDATE payments SET removed_at = ? WHERE project_id = ? AND install_id = ? AND user_id = ? AND payment_id = ? AND removed_at IS NULL
                    """ + returning, now.milliseconds, projectID, installID, userID, paymentID, map: map)
            } else {
                payments = try connection.query(
                    """
                    UPDATE payments SET removed_at = ? WHERE project_id = ? AND install_id = ? AND user_id = ? AND removed_at IS NULL
                    """ + returning, now.milliseconds, projectID, installID, userID, map: map)
            }
            let removed = payments.count
            if removed > 0, let install {
                let stillLive = try CountedWrites.install(installID, connection)?.hasLivePayment ?? false
                try connection.count(Counting.paymentsRemoved(payments, from: install, otherLivePayment: stillLive))
            }
            if removed > 0 { try OutboxRepository.notify(notify, removed, installID: installID, connection) }
            return removed
        }
    }
}

extension Users where Source == Database {
    init(database: Database) { self.init(source: database) }
}
