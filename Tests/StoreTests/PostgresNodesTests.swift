import Attribution
import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
import SQLValues
import StoreContracts
import Synchronization
import TestSupport
import Testing

@_spi(StoreInternals) @testable import Store

/// What several nodes on one PostgreSQL database share at the store: each outbox job leased by one
/// node's worker however many claim at once, and click retention pruned by one node at a time.
@Suite struct PostgresNodesTests {
    /// Two "nodes" (each its own pool and writer) on one database.
    static func nodes(_ url: String) throws -> [PGSource] {
        try PGMigrator.migrate(PGConnection(url: url))
        return (0..<2).map { _ in
            let pool = PGPool(url: url, size: 4, errors: .store)
            return PGSource(pool: pool, writer: PGWriter(pool: pool, lanes: 2))
        }
    }

    @Test func everyOutboxJobIsLeasedByOneNodeAtATime() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let nodes = try Self.nodes(url)
        let projects = nodes[0].pool.projectStore()
        let project = try projects.create(name: "Shop", settings: ProjectSettings()).project
        let now = Timestamp(milliseconds: 1_760_000_000_000)
        let messages = (0..<300).map { index in
            OutboxMessage(
                id: "job-\(index)", projectID: project.id, kind: "webhook", targetID: nil, targetURL: "https://example.com/hook",
                eventID: "msg_\(index)", eventType: "install.created", payload: "{}", createdAt: now)
        }
        try Outbox(source: nodes[0]).enqueue(messages)

        // Six workers, three per node, claim small pages at once until nothing is due.
        let claimed = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            let outbox = Outbox(source: nodes[worker % 2])
            while let jobs = try? outbox.claimDue(now: now, leaseUntil: now.adding(seconds: 60), limit: 7), !jobs.isEmpty {
                claimed.withLock { $0 += jobs.map(\.message.id) }
            }
        }
        let ids = claimed.withLock { $0 }
        #expect(ids.count == 300, "each job once: \(ids.count) claims")
        #expect(Set(ids).count == 300)
        // Leased: not due again until the lease ends, then taken again.
        #expect(try Outbox(source: nodes[1]).claimDue(now: now.adding(seconds: 30), leaseUntil: now.adding(seconds: 90), limit: 500).isEmpty)
        #expect(try Outbox(source: nodes[1]).claimDue(now: now.adding(seconds: 61), leaseUntil: now.adding(seconds: 120), limit: 500).count == 300)
    }

    @Test func clickRetentionPrunesOnOneNodeAtATime() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let nodes = try Self.nodes(url)
        let project = try nodes[0].pool.projectStore().create(name: "Shop", settings: ProjectSettings()).project
        try nodes[0].pool.transaction { connection in
            for index in 0..<50 {
                try connection.run("INSERT INTO clicks (click_id, project_id, created_at) VALUES (?, ?, ?)", "old-\(index)", project.id, Int64(index))
            }
            try connection.run("INSERT INTO clicks (click_id, project_id, created_at) VALUES ('new', ?, 1000000)", project.id)
        }
        var retention = ClickRetention(pruner: ClickPruner(source: nodes[1]))
        retention.batchSize = 10
        // Another node pruning (holding the lock in its transaction): this one skips its round.
        let other = try PGConnection(url: url)
        try other.execute("BEGIN")
        _ = try other.query("SELECT pg_advisory_xact_lock(?)", [.integer(ClickPruner<PGSource>.advisoryLock)])
        #expect(try retention.deleteClicks(before: Timestamp(milliseconds: 500_000)) == 0)
        try other.execute("COMMIT")
        #expect(try retention.deleteClicks(before: Timestamp(milliseconds: 500_000)) == 50)
        #expect(try other.query("SELECT count(*) FROM clicks").integer(0, 0) == 1)
    }

    /// `database_read_url`: the stats and the dashboard's reads go to the replica's URL, every other
    /// read and every write to the primary. (Here the "replica" is a second database with rows of
    /// its own, so where each answer came from shows.)
    @Test func statsAndDashboardReadsGoToTheReadURL() throws {
        let cluster = try PostgresCluster.shared()
        let primaryURL = try cluster.newDatabase()
        let replicaURL = try cluster.newDatabase()
        let backend = try PGStoreBackend(url: primaryURL, readURL: replicaURL, readers: 2, writeLanes: 2)
        defer { try? backend.close() }
        let project = try backend.projects.create(name: "Shop", settings: ProjectSettings()).project
        try PGMigrator.migrate(PGConnection(url: replicaURL))
        let replica = try PGConnection(url: replicaURL)
        _ = try replica.query(
            "INSERT INTO projects (id, name, token_hash, created_at, updated_at) VALUES ($1, 'Shop', '\\x01', 0, 0)",
            [.text(project.id)])
        for index in 0..<3 {
            _ = try replica.query(
                "INSERT INTO clicks (click_id, project_id, created_at) VALUES ($1, $2, 1760000000000)",
                [.text("replica-\(index)"), .text(project.id)])
        }
        try RollupRecount.rebuild(replica)  // rows written by hand: counted by a rebuild
        let range = (Timestamp(milliseconds: 1_759_000_000_000), Timestamp(milliseconds: 1_761_000_000_000))
        #expect(try backend.stats.stats(projectID: project.id, since: range.0, until: range.1, currency: "USD").totals.clicks == 3)
        #expect(try backend.projects.find(id: project.id) == project)  // other reads: the primary
        #expect(try PGConnection(url: primaryURL).query("SELECT count(*) FROM clicks").integer(0, 0) == 0)
    }

    /// With several write lanes, `outbox_new`'s `seq` values commit out of order. A job whose
    /// `seq` was taken before the newest one but that commits while a move runs must be moved by
    /// a later move, not deleted unmoved (the move was once two statements, each with its own
    /// snapshot: a copy up to a `seq`, then a delete up to it). A test-only trigger holds the
    /// move open after its copy, and the older job commits then.
    @Test func aJobCommittedWhileAMoveRunsIsMovedByTheNextOneNotLost() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let nodes = try Self.nodes(url)
        let project = try nodes[0].pool.projectStore().create(name: "Shop", settings: ProjectSettings()).project
        let now = Timestamp(milliseconds: 1_760_000_000_000)
        func message(_ id: String) -> OutboxMessage {
            OutboxMessage(
                id: id, projectID: project.id, kind: "webhook", targetID: nil, targetURL: "https://example.com/hook",
                eventID: "msg_\(id)", eventType: "event.created", payload: "{}", createdAt: now)
        }
        let setup = try PGConnection(url: url)
        try setup.execute(
            """
            CREATE FUNCTION hold_the_move() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.6); RETURN NULL; END $$;
            CREATE TRIGGER hold_the_move AFTER INSERT ON outbox_jobs FOR EACH STATEMENT EXECUTE FUNCTION hold_the_move();
            """)

        // The older job takes its seq first and stays uncommitted; a newer one commits.
        let older = try PGConnection(url: url)
        try older.execute("BEGIN")
        let job = message("older")
        try older.query(
            OutboxRepository.insertJob,
            [
                .text(job.id), .text(job.projectID), .text(job.kind), .null, .text(job.targetURL),
                .text(job.eventID), .text(job.eventType), .text(job.payload),
                .integer(now.milliseconds), .null,
            ])
        let outbox = Outbox(source: nodes[0])
        try outbox.enqueue([message("newer")])

        // A move sees only the newer job; the older commits while the move is held after its copy.
        let moved = DispatchGroup()
        moved.enter()
        DispatchQueue.global().async {
            _ = try? outbox.claimDue(now: now, leaseUntil: now.adding(seconds: 60), limit: 10)
            moved.leave()
        }
        // The move is held once its trigger sleeps: then the older job commits.
        #expect(
            try eventually(timeout: 10) { try setup.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'").integer(0, 0) == 1 })
        try older.execute("COMMIT")
        moved.wait()

        _ = try outbox.claimDue(now: now, leaseUntil: now.adding(seconds: 60), limit: 10)
        let jobs = try nodes[0].pool.read { try $0.query("SELECT id FROM outbox_jobs ORDER BY id", []).rows.compactMap { $0[0] } }
        let waiting = try nodes[0].pool.read { try $0.query("SELECT count(*) FROM outbox_new", []).integer(0, 0) }
        #expect(jobs == ["newer", "older"], "both jobs moved, none deleted unmoved")
        #expect(waiting == 0)
    }
}
