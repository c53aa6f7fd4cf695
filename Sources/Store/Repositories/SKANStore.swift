public import Attribution
import Counting
import Foundation
import JSON
import SQLValues
public import StoreContracts

/// SKAN values for one install, computed and stored inside the caller's write transaction, so the
/// state always moves with the event that changed it (and the single writer serialises the calls
/// of one install: values cannot go down under concurrency).
extension SKANStore {
    /// Evaluates at `now` and stores the state; nil when no SKAN keys are due.
    @_spi(StoreInternals) public static func evaluate(installID: String, context: Context?, now: Timestamp, _ connection: some StoreSession) throws
        -> SKANValues?
    {
        try evaluate(installID: installID, context: context, now: now, session: connection) { change in
            try OutboxRepository.notify(context?.notify, change, installID: installID, connection)
        }
    }

    /// The evaluation on either backend; `changed` is told of each window whose stored values
    /// moved (the caller writes its outbox jobs in the same transaction).
    @_spi(StoreInternals) public static func evaluate(
        installID: String, context: Context?, now: Timestamp, session: some StoreSession,
        changed: (SKANChange) throws -> Void
    ) throws -> SKANValues? {
        guard let context, context.schema.enabled else { return nil }
        guard
            let (platform, firstInit, isTest, projectID) = try session.query(
                "SELECT platform, created_at, is_test, project_id FROM installs WHERE id = ?",
                values: [.text(installID)],
                map: {
                    ($0.optionalString(0), Timestamp(milliseconds: $0.int(1)), $0.bool(2), $0.string(3))
                }
            ).first
        else { return nil }
        var events = try session.query("SELECT name, received_at, revenue, currency FROM events WHERE install_id = ?", values: [.text(installID)]) {
            SKANEvent(
                name: $0.string(0), receivedAt: Timestamp(milliseconds: $0.int(1)), amount: $0.optionalDouble(2), currency: $0.optionalString(3))
        }
        // A completed payment counts as the schema's payment event; a removed one no longer counts.
        events += try session.query(
            """
            SELECT created_at, amount, currency FROM payments WHERE install_id = ? AND removed_at IS NULL AND status = 'PAYMENT_COMPLETED'
            """, values: [.text(installID)]
        ) {
            SKANEvent(name: context.schema.paymentEvent, receivedAt: Timestamp(milliseconds: $0.int(0)), amount: $0.double(1), currency: $0.string(2))
        }
        var state: [Int: SKANWindowState] = [:]
        // "window" quoted: a reserved word in PostgreSQL, a plain name in SQLite.
        for (window, value) in try session.query(
            #"SELECT "window", fine, coarse, locked FROM skan_state WHERE install_id = ?"#,
            values: [.text(installID)],
            map: {
                (
                    Int($0.int(0)),
                    SKANWindowState(
                        fine: $0.optionalInt(1).map(Int.init), coarse: $0.optionalString(2).flatMap(SKANSchema.Coarse.init),
                        locked: $0.bool(3))
                )
            })
        { state[window] = value }
        let outcome = SKANEvaluator.evaluate(
            schema: context.schema, isIOS: platform == "ios", firstInit: firstInit, now: now,
            events: events, state: state)
        if !outcome.unknownCurrencies.isEmpty {
            warn(
                "SKAN: amounts in \(outcome.unknownCurrencies.sorted().joined(separator: ", ")) left out of revenue (no fx rate)",
                installID: installID)
        }
        for (window, value) in outcome.state where state[window] != value {
            let values: [any SQLBindable] = [installID, window, value.fine, value.coarse?.rawValue, value.locked, now.milliseconds]
            try session.run(
                #"""
                INSERT INTO skan_state (install_id, "window", fine, coarse, locked, updated_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (install_id, "window") DO UPDATE SET fine = excluded.fine, coarse = excluded.coarse,
                    locked = excluded.locked, updated_at = excluded.updated_at
                """#, values: values.map(\.sqlValue))
            try session.count(
                Counting.skanChanged(
                    window: window, from: state[window]?.talliedValue, to: value.talliedValue, projectID: projectID,
                    installedAt: firstInit.milliseconds, isTest: isTest))
            // A test install's values are answered and stored, never sent out.
            if !isTest { try changed(SKANChange(installID: installID, window: window, fine: value.fine, coarse: value.coarse, locked: value.locked)) }
        }
        return outcome.values
    }
}

extension SKANWindowState {
    /// The value the SKAN tallies count it under: the fine value as text, else the coarse one.
    var talliedValue: String? { fine.map(String.init) ?? coarse?.rawValue }
}

extension SKANStore {
    /// One JSON line on stderr, like the server's other log lines.
    static func warn(_ message: String, installID: String) {
        var line = JSONValue.object(["level": .string("warning"), "msg": .string(message), "install_id": .string(installID)]).serialized()
        line.append(UInt8(ascii: "\n"))
        FileHandle.standardError.write(Data(line))
    }
}
