import Dispatch
import Foundation

/// Folds the WAL back into the database file from its own connection, once a second, with
/// `PASSIVE` checkpoints: they copy what no reader still needs and never wait for (or block) the
/// writer. Without it the WAL would grow without bound, since the writer does not checkpoint.
final class Checkpointer: @unchecked Sendable {
    // `connection` is only used on `queue`.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "attributiond.store.checkpoint", qos: .utility)
    private let timer: any DispatchSourceTimer

    init(path: String, interval: DispatchTimeInterval = .seconds(1)) throws {
        connection = try SQLiteConnection(path: path, mode: .readWrite)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [connection] in
            _ = try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        }
        timer.resume()
    }

    func stop() {
        timer.cancel()
        queue.sync {}
    }

    deinit { timer.cancel() }
}
