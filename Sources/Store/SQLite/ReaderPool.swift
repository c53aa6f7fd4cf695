import Dispatch
import Foundation
import StoreContracts

/// A fixed set of read-only connections. WAL mode lets them read while the writer commits; each
/// is lent to one caller at a time (see `SQLiteConnection` for why that is the threading rule).
public final class ReaderPool: @unchecked Sendable {
    // `available` is only touched under `lock`; a connection has one holder at a time.
    private let lock = NSLock()
    private var available: [SQLiteConnection]
    private let slots: DispatchSemaphore

    init(connections: [SQLiteConnection]) {
        available = connections
        slots = DispatchSemaphore(value: connections.count)
    }

    @_spi(StoreInternals) public func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        slots.wait()
        lock.lock()
        let connection = available.removeLast()
        lock.unlock()
        defer {
            lock.lock()
            available.append(connection)
            lock.unlock()
            slots.signal()
        }
        return try body(connection)
    }
}
