import Foundation
import Synchronization

/// Hears, on a connection of its own, the tables other nodes (and this one) changed: the
/// `attributiond_changes` notifications of migration postgres/0002, sent at each COMMIT. Observers
/// are called on the listener's thread with the tables they asked for. After a lost connection it
/// connects again, LISTENs again, and tells every observer that all its tables changed: what
/// happened in the gap was not heard, so caches must be emptied.
public final class PGChangeListener: Sendable {
    static let channel = "attributiond_changes"

    private let url: String
    private let observers = Mutex<[(tables: Set<String>, observer: @Sendable ([String]) -> Void)]>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// Reconnections after a lost connection (for tests and metrics).
    public var reconnections: Int { reconnectCount.load(ordering: .relaxed) }
    private let reconnectCount = Atomic<Int>(0)

    /// Connects and LISTENs before returning, so that no change committed after it is missed.
    public init(url: String) throws {
        self.url = url
        let connection = try Self.listening(url)
        let box = ConnectionBox(connection)
        Thread.detachNewThread { [self] in self.run(box) }
    }

    public func observe(changing tables: [String], _ observer: @escaping @Sendable ([String]) -> Void) {
        observers.withLock { $0.append((Set(tables), observer)) }
    }

    /// Stops listening and waits for the thread (at most one wait of `run`'s poll). The thread
    /// holds the listener until then, so an owner that is done with it calls this.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        finished.wait()
    }

    private final class ConnectionBox: @unchecked Sendable {
        var connection: PGConnection?
        init(_ connection: PGConnection) { self.connection = connection }
    }

    private static func listening(_ url: String) throws -> PGConnection {
        let connection = try PGConnection(url: url)
        try connection.execute("LISTEN \(channel)")
        return connection
    }

    private func run(_ box: ConnectionBox) {
        defer { finished.signal() }
        while !stopped.load(ordering: .relaxed) {
            guard let connection = box.connection else {
                // Away: try again every half second until it answers, then assume everything changed.
                Thread.sleep(forTimeInterval: 0.5)
                if let fresh = try? Self.listening(url) {
                    box.connection = fresh
                    reconnectCount.add(1, ordering: .relaxed)
                    tell(nil)
                }
                continue
            }
            do {
                let tables = try connection.notifications(waitingUpTo: 200)
                if !tables.isEmpty { tell(Set(tables)) }
            } catch {
                box.connection = nil
            }
        }
    }

    /// Calls each observer with the changed tables it watches (nil: all of them).
    private func tell(_ changed: Set<String>?) {
        for (tables, observer) in observers.withLock({ $0 }) {
            let heard = changed.map { tables.intersection($0) } ?? tables
            if !heard.isEmpty { observer(heard.sorted()) }
        }
    }
}
