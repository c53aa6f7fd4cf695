import Dispatch
import Foundation

/// Folds the WAL back into the database file from its own connection, so the writer never stalls
/// on a checkpoint. Every 50 ms it runs a `PASSIVE` checkpoint (copies what no reader
/// still needs, never waits for the writer). Under continuous writes that alone never lets the WAL
/// restart, so once the WAL passes `restartThreshold` bytes it runs a `RESTART` checkpoint: short,
/// because the passive ones already copied nearly everything, and it lets the next write start
/// the WAL from the beginning again.
final class Checkpointer: @unchecked Sendable {
    // `connection` is only used on `queue`.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "attributiond.store.checkpoint", qos: .utility)
    private let timer: any DispatchSourceTimer
    private let walPath: String
    private let restartThreshold: UInt64

    init(path: String, interval: DispatchTimeInterval = .milliseconds(50), restartThreshold: UInt64 = 64 << 20) throws {
        // A short busy timeout: a RESTART that cannot finish soon is retried on the next tick.
        connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeoutMilliseconds: 200)
        walPath = path + "-wal"
        self.restartThreshold = restartThreshold
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.checkpoint() }
        timer.resume()
    }

    private func checkpoint() {
        _ = try? connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
        let size = (try? FileManager.default.attributesOfItem(atPath: walPath)[.size] as? UInt64) ?? 0
        if size > restartThreshold {
            _ = try? connection.execute("PRAGMA wal_checkpoint(RESTART)")
        }
    }

    func stop() {
        timer.cancel()
        queue.sync {}
    }

    deinit { timer.cancel() }
}
