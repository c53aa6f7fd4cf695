import Dispatch
import StoreContracts
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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
///
/// SQLite syncs the database file only after a checkpoint that copied the whole WAL, which under
/// continuous writes only the writer's RESTART does: it then had to write back every page copied
/// since the last restart, and its fdatasync took 60–75 ms while no write could commit. So after
/// each pass that copied frames the checkpointer syncs the database file itself, here, where
/// waiting holds nothing up, and the RESTART finds little left to write back.
final class Checkpointer: @unchecked Sendable {
    // `connection` is only used on `queue`.
    private let connection: SQLiteConnection
    private let queue = DispatchQueue(label: "attributiond.store.checkpoint", qos: .utility)
    private let timer: any DispatchSourceTimer
    private let lock: CheckpointLock
    /// The database file, opened only to sync it (-1 if it could not be opened: then SQLite's own
    /// sync at the restart does all the work, as before).
    private let databaseFile: Int32
    /// Frames copied back as of the last pass (checkpoint queue only).
    private var lastCopiedFrames: Int64 = -1
    private let syncs = Atomic<Int>(0)

    /// Database-file syncs after passes that copied frames (for tests).
    var syncCount: Int { syncs.load(ordering: .relaxed) }

    init(path: String, lock: CheckpointLock, interval: DispatchTimeInterval = .milliseconds(50)) throws {
        self.lock = lock
        connection = try SQLiteConnection(path: path, mode: .readWrite, busyTimeoutMilliseconds: 200)
        databaseFile = open(path, O_RDONLY | O_CLOEXEC)
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.checkpoint() }
        timer.resume()
    }

    private func checkpoint() {
        // (busy, frames in the WAL, frames copied back): copied frames that changed mean new pages.
        let copied = lock.mutex.withLock { _ in
            try? connection.queryOne("PRAGMA wal_checkpoint(PASSIVE)") { $0.int(2) }
        }
        guard let copied, copied > 0, copied != lastCopiedFrames else { return }
        lastCopiedFrames = copied
        if databaseFile >= 0, Self.syncData(databaseFile) == 0 { syncs.add(1, ordering: .relaxed) }
    }

    private static func syncData(_ file: Int32) -> Int32 {
        #if canImport(Glibc)
            fdatasync(file)
        #else
            fsync(file)
        #endif
    }

    func stop() {
        timer.cancel()
        queue.sync {}
    }

    deinit {
        timer.cancel()
        if databaseFile >= 0 { close(databaseFile) }
    }
}
