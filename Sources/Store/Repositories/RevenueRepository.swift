import Attribution
import Counting
import Cryptography
import SQLValues
import StoreContracts

/// Store-verified revenue on either backend (`SessionSource`): sources, and notifications applied
/// to the payments of the installs they name.
struct Revenue<Source: SessionSource>: RevenueStore {
    let source: Source

    func save(_ connection: RevenueSourceConnection) throws {
        try source.writeSession { session in
            try session.run(
                RevenueRepository.upsert, connection.projectID, connection.source.rawValue, JSONText.encode(connection.settings),
                JSONText.encode(connection.secrets), connection.updatedAt.milliseconds)
        }
    }

    func connection(projectID: String, source revenueSource: RevenueSource) throws -> RevenueSourceConnection? {
        try source.read { session in
            try session.queryOne(RevenueRepository.one, projectID, revenueSource.rawValue, map: RevenueRepository.connection) ?? nil
        }
    }

    func connections(projectID: String) throws -> [RevenueSourceConnection] {
        try source.read { session in try session.query(RevenueRepository.ofProject, projectID, map: RevenueRepository.connection).compactMap { $0 } }
    }

    func delete(projectID: String, source revenueSource: RevenueSource) throws -> Bool {
        try source.writeSession { session in try session.run(RevenueRepository.deleteOne, projectID, revenueSource.rawValue) > 0 }
    }

    func record(_ transaction: StoreTransaction, projectID: String, at now: Timestamp) throws -> StoreRevenueOutcome {
        try source.writeSession { session in
            let kept = try session.run(
                RevenueRepository.keepNotification, projectID, transaction.source.rawValue, transaction.notificationID, transaction.type,
                transaction.transactionID, now.milliseconds)
            guard kept > 0 else {
                let earlier = try session.queryOne(
                    RevenueRepository.notificationOutcome, projectID, transaction.source.rawValue, transaction.notificationID
                ) { (StoreRevenueOutcome.Result(rawValue: $0.string(0)) ?? .unchanged, $0.optionalString(1)) }
                return StoreRevenueOutcome(result: earlier?.0 ?? .unchanged, installID: earlier?.1, duplicate: true)
            }
            let installID = try RevenueRepository.installNamed(by: transaction, projectID: projectID, session)
            let result: StoreRevenueOutcome.Result
            if let installID {
                result = try RevenueRepository.apply(transaction, installID: installID, projectID: projectID, now: now, session)
            } else {
                result = transaction.effect == .none || transaction.isSandbox ? .unchanged : .unmatched
            }
            try session.run(
                RevenueRepository.noteOutcome, result.rawValue, installID, projectID, transaction.source.rawValue, transaction.notificationID)
            return StoreRevenueOutcome(result: result, installID: installID)
        }
    }
}

/// The sources' and notifications' SQL, for both backends.
enum RevenueRepository {
    static let columns = "project_id, source, settings, secrets, updated_at"
    static let upsert = """
        INSERT INTO revenue_sources (project_id, source, settings, secrets, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (project_id, source) DO UPDATE SET settings = excluded.settings, secrets = excluded.secrets, updated_at = excluded.updated_at
        """
    static let one = "SELECT \(columns) FROM revenue_sources WHERE project_id = ? AND source = ?"
    static let ofProject = "SELECT \(columns) FROM revenue_sources WHERE project_id = ? ORDER BY source"
    static let deleteOne = "DELETE FROM revenue_sources WHERE project_id = ? AND source = ?"

    static func connection(_ row: some ColumnReader) -> RevenueSourceConnection? {
        guard let source = RevenueSource(rawValue: row.string(1)) else { return nil }
        return RevenueSourceConnection(
            projectID: row.string(0), source: source, settings: CodableText.decode([String: String].self, row.string(2)) ?? [:],
            secrets: CodableText.decode([String: String].self, row.string(3)) ?? [:], updatedAt: Timestamp(milliseconds: row.int(4)))
    }

    static let keepNotification = """
        INSERT INTO store_notifications (project_id, source, notification_id, type, transaction_id, outcome, received_at)
        VALUES (?, ?, ?, ?, ?, 'unchanged', ?) ON CONFLICT (project_id, source, notification_id) DO NOTHING
        """
    static let notificationOutcome = """
        SELECT outcome, install_id FROM store_notifications WHERE project_id = ? AND source = ? AND notification_id = ?
        """
    static let noteOutcome = """
        UPDATE store_notifications SET outcome = ?, install_id = ? WHERE project_id = ? AND source = ? AND notification_id = ?
        """

    /// The install a notification names: one of its account identifiers as an install id, then as
    /// a user id (the user's latest install), then the install whose payment is its transaction
    /// (or the original transaction the SDK reported first).
    static func installNamed(by transaction: StoreTransaction, projectID: String, _ session: some StoreSession) throws -> String? {
        for identifier in transaction.accountIdentifiers {
            if let id = try session.queryOne("SELECT id FROM installs WHERE id = ? AND project_id = ?", identifier, projectID, map: { $0.string(0) })
            {
                return id
            }
        }
        for identifier in transaction.accountIdentifiers {
            if let id = try session.queryOne(
                "SELECT id FROM installs WHERE project_id = ? AND user_id = ? ORDER BY created_at DESC LIMIT 1", projectID, identifier,
                map: { $0.string(0) })
            {
                return id
            }
        }
        for paymentID in [transaction.transactionID, transaction.originalTransactionID ?? ""] where !paymentID.isEmpty {
            if let id = try session.queryOne(
                "SELECT install_id FROM payments WHERE project_id = ? AND payment_id = ?", projectID, paymentID, map: { $0.string(0) })
            {
                return id
            }
        }
        return nil
    }

    /// A purchase stored as the install's payment, or verifying the SDK's payment of the same
    /// transaction (the store's amount and currency win); a refund removes it. Counted as the
    /// SDK's payments are.
    static func apply(
        _ transaction: StoreTransaction, installID: String, projectID: String, now: Timestamp, _ session: some StoreSession
    ) throws -> StoreRevenueOutcome.Result {
        guard !transaction.isSandbox, transaction.effect != .none, !transaction.transactionID.isEmpty else { return .unchanged }
        try CountedWrites.takeTurn(onInstall: installID, session)
        guard let install = try CountedWrites.install(installID, session) else { return .unmatched }
        let existing = try session.queryOne(
            "SELECT install_id, created_at, currency, amount, removed_at IS NOT NULL, verified_by FROM payments WHERE project_id = ? AND payment_id = ?",
            projectID, transaction.transactionID
        ) { row in
            (
                install: row.string(0), fact: PaymentFact(at: row.int(1), currency: row.string(2), amount: row.double(3)), removed: row.bool(4),
                verifiedBy: row.optionalString(5)
            )
        }
        switch transaction.effect {
        case .none: return .unchanged
        case .refund:
            guard let existing, existing.install == installID, !existing.removed else { return .unchanged }
            try session.run(
                "UPDATE payments SET removed_at = ? WHERE project_id = ? AND payment_id = ? AND removed_at IS NULL", now.milliseconds, projectID,
                transaction.transactionID)
            let stillLive = try CountedWrites.install(installID, session)?.hasLivePayment ?? false
            try session.count(Counting.paymentRemoved(existing.fact, from: install, otherLivePayment: stillLive))
            return .refunded
        case .purchase:
            guard let amount = transaction.amount, let currency = transaction.currency else { return .unchanged }
            if let existing {
                // Verified once is final; another install's transaction is not this one's.
                guard existing.install == installID, existing.verifiedBy == nil, !existing.removed else { return .unchanged }
                try session.run(
                    "UPDATE payments SET amount = ?, currency = ?, verified_by = ? WHERE project_id = ? AND payment_id = ?", amount, currency,
                    transaction.source.storedName, projectID, transaction.transactionID)
                let verified = PaymentFact(at: existing.fact.at, currency: currency, amount: amount)
                try session.count(Counting.paymentRemoved(existing.fact, from: install, otherLivePayment: true))
                var paying = install
                paying.hasLivePayment = true
                try session.count(Counting.paymentAdded(verified, to: paying))
                return .verifiedSDKPayment
            }
            // Bought when the store says, held inside the install's lifetime as events are.
            let at = ChartedTime.of(
                occurredAt: Timestamp(milliseconds: transaction.occurredAt ?? now.milliseconds),
                installedAt: Timestamp(milliseconds: install.createdAt),
                receivedAt: now)
            let userID = try session.queryOne("SELECT coalesce(user_id, '') FROM installs WHERE id = ?", installID) { $0.string(0) } ?? ""
            try session.run(
                """
                INSERT INTO payments (id, project_id, install_id, payment_id, user_id, amount, currency, type, status, created_at, verified_by)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PAYMENT_COMPLETED', ?, ?)
                """, TimeOrderedID.secure(at: now), projectID, installID, transaction.transactionID, userID, amount, currency, transaction.type,
                at.milliseconds, transaction.source.storedName)
            try session.count(Counting.paymentAdded(PaymentFact(at: at.milliseconds, currency: currency, amount: amount), to: install))
            return .stored
        }
    }
}
