import Dispatch
import StoreContracts
import TestSupport
import Testing

@_spi(StoreInternals) @testable import Store

@Suite struct CheckpointerTests {
    /// After a pass that copied frames, the database file is synced by the checkpointer, not left
    /// for the writer's WAL restart to write back while every write waits.
    @Test func aPassThatCopiedFramesSyncsTheDatabaseFile() throws {
        let temp = try TemporaryDatabase()
        let before = temp.database.checkpointer.syncCount
        try temp.database.writeAndWait { connection in
            try connection.execute("CREATE TABLE synced (id INTEGER PRIMARY KEY, body TEXT)")
            for id in 1...200 { _ = try connection.run("INSERT INTO synced VALUES (?, ?)", id, String(repeating: "x", count: 500)) }
        }
        // The checkpointer runs every 50 ms: give it a few seconds on a loaded machine.
        #expect(eventually(timeout: 5) { temp.database.checkpointer.syncCount > before })
    }
}
