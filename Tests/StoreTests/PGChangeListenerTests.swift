import Attribution
import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
@_spi(StoreInternals) import Store
import StoreContracts
import Synchronization
import TestSupport
import Testing

/// Cache coherence across nodes on PostgreSQL: what one node changes, another hears within a
/// second (migration postgres/0002's notifications, `PGChangeListener`).
@Suite(.serialized) struct PGChangeListenerTests {
    /// What a listener heard, with a wait for the next table.
    final class Heard: Sendable {
        let tables = Mutex<[String]>([])
        let arrived = DispatchSemaphore(value: 0)
        func record(_ changed: [String]) {
            tables.withLock { $0 += changed }
            arrived.signal()
        }
        /// Waits up to `seconds` for `table`; how long it took, nil when it did not come.
        func wait(for table: String, seconds: Double = 5) -> Double? {
            let start = Date()
            while Date().timeIntervalSince(start) < seconds {
                if tables.withLock({ $0.contains(table) }) { return Date().timeIntervalSince(start) }
                _ = arrived.wait(timeout: .now() + 0.05)
            }
            return nil
        }
        func clear() { tables.withLock { $0.removeAll() } }
    }

    @Test func aChangeThroughOneNodeReachesTheOtherWithinASecond() throws {
        let url = try PostgresCluster.shared().newDatabase()
        try PGMigrator.migrate(url: url)
        let nodeA = PGPool(url: url, size: 2, errors: .store)
        let nodeB = PGPool(url: url, size: 2, errors: .store)
        let listenerB = try PGChangeListener(url: url)
        defer { listenerB.stop() }
        let heard = Heard()
        listenerB.observe(changing: ["projects", "api_keys", "links", "templates"]) { heard.record($0) }

        let created = try nodeA.projectStore().create(name: "Shop", settings: ProjectSettings())
        #expect(heard.wait(for: "projects").map { $0 < 1 } == true)
        #expect(try nodeB.projectStore().project(forAPIKey: created.apiKey.key) != nil)
        heard.clear()
        #expect(try nodeA.projectStore().revokeAPIKey(projectID: created.project.id, keyID: created.apiKey.id))
        let took = heard.wait(for: "api_keys")
        #expect(took.map { $0 < 1 } == true, "revocation heard after \(String(describing: took)) s")
        #expect(try nodeB.projectStore().project(forAPIKey: created.apiKey.key) == nil)

        heard.clear()
        let link = try nodeA.linkStore().create(
            Link(
                id: "l1", projectID: created.project.id, shortCode: "sale", maxClicks: 5,
                createdAt: Timestamp(milliseconds: 0)), codeIsCustom: true)
        #expect(heard.wait(for: "links") != nil)
        // A counted click moves click_count only: no cache holds it, so nothing is sent.
        heard.clear()
        let writer = PGWriter(pool: nodeA)
        try BackendStoreTests.wait {
            PGClickStore(pool: nodeA, writer: writer).record(
                countTowardLimit: true,
                Click(
                    clickID: "c1", projectID: created.project.id, linkID: link.id, source: .link,
                    createdAt: Timestamp(milliseconds: 1)), completion: $0)
        }
        #expect(try nodeB.linkStore().find(shortCode: "sale", domain: nil)?.clicks == 1)
        #expect(heard.wait(for: "links", seconds: 0.5) == nil)
        // A change that is rolled back is never heard.
        #expect(throws: (any Error).self) {
            try nodeA.transaction { connection in
                try connection.run("UPDATE projects SET name = 'Rolled back' WHERE id = ?", created.project.id)
                throw StoreError.conflict("changed my mind")
            }
        }
        #expect(heard.wait(for: "projects", seconds: 0.5) == nil)
    }

    @Test func aListenerComesBackAfterTheDatabaseAndReportsEverythingChanged() throws {
        let cluster = try PostgresCluster()
        try PGMigrator.migrate(url: cluster.url)
        let listener = try PGChangeListener(url: cluster.url)
        defer { listener.stop() }
        let heard = Heard()
        listener.observe(changing: ["projects", "links"]) { heard.record($0) }
        cluster.kill()
        try cluster.start()
        // Whatever happened while it was away counts as changed.
        #expect(heard.wait(for: "links", seconds: 10) != nil)
        #expect(listener.reconnections >= 1)
        heard.clear()
        _ = try PGPool(url: cluster.url, size: 1, errors: .store).projectStore().create(name: "After", settings: ProjectSettings())
        #expect(heard.wait(for: "projects") != nil)
    }
}
