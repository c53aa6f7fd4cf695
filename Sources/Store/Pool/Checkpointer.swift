import Dispatch

/// Copies the WAL back into the database file from its own connection, so the writer never spends
/// its time on it: every 50 ms a `PASSIVE` checkpoint copies what no reader still needs, never
/// waiting for the writer and never making it wait. Starting the WAL over once it is large is the
/// writer's own job (`DatabaseWriter`), between two batches, when almost nothing is left to copy.
final class Checkpointer: @unchecked Sendable {
    // `connection` is only used on `queue`.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "attributiond.store.checkpoint", qos: .utility)
    private let timer: any DispatchSourceTimer

    init(path: String, interval: DispatchTimeInterval = .milliseconds(50)) throws {
        connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeoutMilliseconds: 200)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.checkpoint() }
        timer.resume()
    }

    private func checkpoint() {
        _ = try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
    }

    func stop() {
        timer.cancel()
        queue.sync {}
    }

    deinit { timer.cancel() }
}
