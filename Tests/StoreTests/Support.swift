import Foundation
import StoreContracts

@_spi(StoreInternals) @testable import Store

/// A fresh database file in its own temporary folder, removed when the value is released.
final class TemporaryDatabase: Sendable {
    let folder: URL
    let database: Database
    var path: String { database.path }

    /// - Parameter foldedThroughHour: set: the rollups' hours after it stay unfolded (migration
    ///   0022) until the test folds them (`DatabaseWriter.foldRollups(through:)`).
    init(
        synchronous: Database.Synchronous = .normal, maxBatch: Int = 256, walRestartFrames: Int = 16_384,
        migrations: [Migration] = Migration.bundled, foldedThroughHour: Int64? = nil
    ) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-test-\(UUID().uuidString)")
        let path = folder.appendingPathComponent("test.sqlite").path
        if let foldedThroughHour {
            // The writer reads the hour when it opens the database.
            let first = try Database(path: path, migrations: migrations)
            try first.writeAndWait { _ = try $0.run("UPDATE rollup_folded SET through_hour = ?", foldedThroughHour) }
        }
        database = try Database(
            path: path, synchronous: synchronous, maxBatch: maxBatch, walRestartFrames: walRestartFrames,
            migrations: migrations)
        if foldedThroughHour != nil { database.writer.foldsClosedHours = false }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}
