import Foundation
@_spi(StoreInternals) @testable import Store

/// A fresh database file in its own temporary folder, removed when the value is released.
final class TemporaryDatabase: Sendable {
    let folder: URL
    let database: Database
    var path: String { database.path }

    init(synchronous: Database.Synchronous = .normal, maxBatch: Int = 256, walRestartFrames: Int = 16_384,
         migrations: [Migration] = Migration.bundled) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-test-\(UUID().uuidString)")
        database = try Database(path: folder.appendingPathComponent("test.sqlite").path, synchronous: synchronous,
                                maxBatch: maxBatch, walRestartFrames: walRestartFrames, migrations: migrations)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}
