import Dispatch
import Synchronization

/// Held while our own checkpointer copies, so that the writer, which restarts the WAL, can tell
/// "our copy is running, try after the next batch" from a reader in the way (SQLITE_BUSY), without
/// waiting in SQLite's busy handler for either.
final class CheckpointLock: Sendable {
    let mutex = Mutex(())
}

/// Copies the WAL back into the database file from its own connection, so the writer never spends
/// its time on it: every 50 ms a `PASSIVE` checkpoint copies what no reader still needs, never
/// waiting for the writer and never making it wait. Starting the WAL over once it is large is the
/// writer's own job (`DatabaseWriter`), between two batches, when almost nothing is left to copy.
final class Checkpointer: @unchecked Sendable {
    // `connection` is only used on `queue`.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "attributiond.store.checkpoint", qos: .utility)
    private let timer: any DispatchSourceTimer
    private let lock: CheckpointLock

    init(path: String, lock: CheckpointLock, interval: DispatchTimeInterval = .milliseconds(50)) throws {
        self.lock = lock
        connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeoutMilliseconds: 200)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.checkpoint() }
        timer.resume()
    }

    private func checkpoint() {
        lock.mutex.withLock { _ in _ = try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)") }
    }

    func stop() {
        timer.cancel()
        queue.sync {}
    }

    deinit { timer.cancel() }
}
