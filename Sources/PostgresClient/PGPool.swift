public import Dispatch
import Foundation
public import SQLValues
import Synchronization

/// A bounded set of connections to one PostgreSQL database, each used by one caller at a time.
/// A caller waits at most `checkoutTimeout` for one; a connection lost to a restart or failover is
/// connected again on its next use. While the database cannot be reached, callers get
/// `errors.unavailable` at once, never a hang (the store makes it its own `unavailable`: 503 with
/// Retry-After at the API).
public final class PGPool: Sendable {
    private let url: String
    private let idle = Mutex<[Connection]>([])
    private let slots: DispatchSemaphore
    private let checkoutTimeout: DispatchTimeInterval
    private let errors: PGPoolErrors

    /// libpq's connection is confined to one caller at a time by the pool, which is what makes
    /// handing it between threads safe.
    private final class Connection: @unchecked Sendable {
        let connection: PGConnection
        init(_ connection: PGConnection) { self.connection = connection }
    }

    /// Told, after each of this pool's transactions committed and before it returns, of the
    /// tables whose change-notification triggers fired in it (postgres/0004).
    private let commitObservers = Mutex<[@Sendable ([String]) -> Void]>([])

    public func observeCommits(_ observer: @escaping @Sendable ([String]) -> Void) {
        commitObservers.withLock { $0.append(observer) }
    }

    public init(url: String, size: Int = 8, checkoutTimeout: DispatchTimeInterval = .seconds(5), errors: PGPoolErrors = .driver) {
        self.url = url
        self.errors = errors
        slots = DispatchSemaphore(value: max(1, size))
        self.checkoutTimeout = checkoutTimeout
    }

    /// Runs `body` on a connection of its own. A read that finds its connection lost is run once
    /// more on a new one.
    public func read<T>(_ body: (PGConnection) throws -> T) throws -> T {
        try withConnection { connection in
            do {
                return try body(connection)
            } catch let error as PGError where error.isConnectionLost {
                try reconnect(connection)
                return try mapped { try body(connection) }
            }
        }
    }

    /// Runs `body` in a transaction, committed when it returns and rolled back when it throws.
    /// Not retried when the connection is lost: whether the COMMIT took effect is unknown, and
    /// the caller's idempotency keys make its retry safe.
    /// A transaction PostgreSQL refused for crossing another (a deadlock between two nodes'
    /// batches) runs again from its start, up to `attempts` times in all.
    /// - Parameter readingAhead: reads sent with the BEGIN, in the same round trip, whose answers
    ///   wait for the body's queries of the same statements and values
    ///   (`PGConnection.beginReadingAhead`).
    /// - Parameter deferringWrites: writes whose answers the body does not read go without
    ///   waiting (`PGConnection.runUnanswered`); one refused throws `PGError.sentUnanswered`.
    @discardableResult
    public func transaction<T>(
        attempts: Int = 3, readingAhead: [(sql: String, values: [SQLValue])] = [],
        deferringWrites: Bool = false, _ body: (PGConnection) throws -> T
    ) throws -> T {
        try withConnection { connection in
            defer { connection.transactionEnded() }
            return try mapped {
                var attempt = 1
                while true {
                    if readingAhead.isEmpty { try connection.execute("BEGIN") } else { try connection.beginReadingAhead(readingAhead) }
                    connection.defersWrites = deferringWrites
                    do {
                        let value = try body(connection)
                        let observers = commitObservers.withLock { $0 }
                        var changed: [String] = []
                        if observers.isEmpty {
                            try connection.execute("COMMIT")
                        } else {
                            // What the transaction changed (postgres/0004), read with its COMMIT: one round trip.
                            let noted = try connection.commitReadingSetting("attributiond.changed") ?? ""
                            changed = Array(Set(noted.split(separator: ",").map(String.init))).sorted()
                        }
                        if !changed.isEmpty { for observer in observers { observer(changed) } }
                        return value
                    } catch {
                        // A write sent unanswered was refused: that is the failure, whatever the
                        // body made of it when it heard (an error mapped, or one caught).
                        let error = connection.unansweredRefusal ?? error
                        if connection.isConnected { _ = try? connection.execute("ROLLBACK") }
                        connection.transactionEnded()
                        // A refusal of a write sent unanswered goes to the writer, which runs the
                        // batch again answered.
                        if let failure = error as? PGError, failure.isRetryable, !failure.sentUnanswered, attempt < attempts {
                            attempt += 1
                            continue
                        }
                        throw error
                    }
                }
            }
        }
    }

    /// Lets the idle connections go (each closes as it is released). A later call connects anew:
    /// a node shutting down, or a test done with its database, holds no server slot meanwhile.
    public func closeIdleConnections() { idle.withLock { $0.removeAll() } }

    /// Runs `body` on a connection of its own, as it is: no transaction around it, no retry.
    public func session<T>(_ body: (PGConnection) throws -> T) throws -> T { try withConnection(body) }

    /// Debug builds tell `report` of a checkout on a thread where `check` says it must not block.
    private let mustNotBlock = Mutex<(check: @Sendable () -> Bool, report: @Sendable (String) -> Void)?>(nil)

    public func forbidBlocking(when check: @escaping @Sendable () -> Bool, report: @escaping @Sendable (String) -> Void) {
        mustNotBlock.withLock { $0 = (check, report) }
    }

    private func withConnection<T>(_ body: (PGConnection) throws -> T) throws -> T {
        #if DEBUG
            if let forbidden = mustNotBlock.withLock({ $0 }), forbidden.check() { forbidden.report("a PostgreSQL call on an event-loop thread") }
        #endif
        guard slots.wait(timeout: .now() + checkoutTimeout) == .success else {
            throw errors.unavailable("every database connection is busy; try again")
        }
        defer { slots.signal() }
        let held: Connection
        if let reused = idle.withLock({ $0.popLast() }) {
            held = reused
        } else {
            do {
                held = Connection(try PGConnection(url: url))
            } catch {
                throw errors.unavailable(error.message)
            }
        }
        defer { if held.connection.isConnected { idle.withLock { $0.append(held) } } }
        if !held.connection.isConnected { try reconnect(held.connection) }
        do {
            return try mapped { try body(held.connection) }
        } catch  where !held.connection.isConnected {
            // One connection lost is most often all of them (a restart, a failover): the idle
            // ones are let go rather than handed, one failed write each, to the next callers
            // (a click written on one would be lost after the database came back).
            idle.withLock { $0.removeAll() }
            throw error
        }
    }

    private func reconnect(_ connection: PGConnection) throws {
        do { try connection.reconnect() } catch { throw errors.unavailable(error.message) }
    }

    /// A lost connection as `errors.unavailable`, a value the database cannot store as
    /// `errors.unstorable`; everything else as thrown.
    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PGError where error.isConnectionLost {
            throw errors.unavailable("the database connection was lost: \(error.message)")
        } catch let error as PGError where error.isUnstorable && !error.sentUnanswered {
            throw errors.unstorable(error.message)
        }
    }
}

/// The errors a pool throws when the database cannot be reached or refuses a value as unstorable:
/// the driver's own by default, the caller's (a store's error type) when it gives them.
public struct PGPoolErrors: Sendable {
    public let unavailable: @Sendable (String) -> any Error
    public let unstorable: @Sendable (String) -> any Error

    public init(unavailable: @escaping @Sendable (String) -> any Error, unstorable: @escaping @Sendable (String) -> any Error) {
        self.unavailable = unavailable
        self.unstorable = unstorable
    }

    public static let driver = PGPoolErrors(
        unavailable: { PGUnavailable(message: $0) }, unstorable: { PGError(sqlState: "22021", message: $0) })
}

/// The database cannot be reached: every connection is busy, or connecting failed.
public struct PGUnavailable: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}
