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

/// A batch's installs send their tier-0 and candidate reads with its BEGIN, read before any of
/// them writes (`InstallRepository.readsAhead`). Installs queued behind a write that holds the
/// lane form one batch: what an earlier one in it claimed or stored, a later one's early reads
/// do not show, and the claim and the insert still decide as they do across nodes.
@Suite(.serialized) struct PostgresReadAheadTests {
    static let now = Timestamp(milliseconds: 1_763_700_000_000)

    static func report(_ projectID: String, instance: String) -> InstallReport {
        InstallReport(
            projectID: projectID, reporter: "linkrunner", identity: InstallIdentity(installInstanceID: instance),
            signals: InstallSignals(time: now, ipKey: "198.51.100.7", platform: .ios))
    }

    /// A backend (one lane besides the clicks') on a new database with project `p`, and a
    /// connection of the test's own to it.
    final class Fixture {
        let backend: PGStoreBackend
        let database: PGConnection

        init() throws {
            let url = try PostgresCluster.shared().newDatabase()
            backend = try PGStoreBackend(url: url, readers: 2, writeLanes: 2)
            database = try PGConnection(url: url)
            try database.execute("INSERT INTO projects (id, name, token_hash, created_at, updated_at) VALUES ('p', 'Shop', '\\x01', 0, 0)")
        }

        deinit { try? backend.close() }
    }

    /// Runs `enqueue` while a write holds the lane, so that what it queues commits as one batch
    /// once the lane is let go; returns when every write it entered in the group has left.
    static func holdingTheLane(_ backend: PGStoreBackend, _ enqueue: (DispatchGroup) -> Void) {
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        backend.writer.write(
            { _ in
                held.signal()
                release.wait()
            }, completion: { _ in })
        held.wait()
        let done = DispatchGroup()
        enqueue(done)
        let batchesBefore = backend.writer.statistics.commits
        release.signal()
        done.wait()
        // The held write's batch, then the one of everything queued behind it.
        #expect(backend.writer.statistics.commits - batchesBefore <= 2)
    }

    /// Queues `reports` behind a write that holds the installs' lane, so they commit as one batch.
    static func oneBatch(_ backend: PGStoreBackend, _ reports: [InstallReport]) throws -> [Result<InstallOutcome, any Error>] {
        let outcomes = Mutex<[Int: Result<InstallOutcome, any Error>]>([:])
        holdingTheLane(backend) { done in
            for (index, report) in reports.enumerated() {
                done.enter()
                backend.installs.report(
                    report, policy: MatchingPolicy(), installID: UUID().uuidString, skan: nil, notify: nil,
                    delivery: nil
                ) { result in
                    outcomes.withLock { $0[index] = result }
                    done.leave()
                }
            }
        }
        return outcomes.withLock { state in reports.indices.map { state[$0]! } }
    }

    @Test func installsOfOneBatchClaimAClickOnceAndOneInstanceOnce() throws {
        let fixture = try Fixture()
        let backend = fixture.backend
        let database = fixture.database
        try database.execute(
            """
            INSERT INTO clicks (click_id, project_id, created_at, ip_key, platform)
            VALUES ('only-click', 'p', \(Self.now.milliseconds - 60_000), '198.51.100.7', 'ios')
            """)

        // Six new installs from the click's network: the one click goes to one of them.
        let outcomes = try Self.oneBatch(backend, (0..<6).map { index in Self.report("p", instance: "instance-\(index)") })
        let installs = try outcomes.map { try $0.get() }
        #expect(installs.allSatisfy { outcome in outcome.isNew })
        #expect(installs.filter { outcome in outcome.install.match.clickID == "only-click" }.count == 1)
        #expect(try database.query("SELECT count(*) FROM installs WHERE click_id = 'only-click'").integer(0, 0) == 1)
        #expect(
            try database.query(
                """
                SELECT count(*) FROM clicks c JOIN installs i ON i.id = c.install_id WHERE c.click_id = 'only-click' AND i.click_id = 'only-click'
                """
            ).integer(0, 0) == 1)

        // One instance reported four times in one batch: one install, named by every answer.
        let again = try Self.oneBatch(backend, (0..<4).map { _ -> InstallReport in Self.report("p", instance: "same-instance") })
        let ids = Set(try again.map { try $0.get().install.id })
        #expect(ids.count == 1)
        #expect(try database.query("SELECT count(*) FROM installs WHERE install_instance_id = 'same-instance'").integer(0, 0) == 1)
    }

    /// Reads of one statement sent ahead are one statement (`BatchedReads`): each is answered
    /// with its own rows, as the statement alone answers it, whatever its values hold (quotes,
    /// backslashes, commas, braces, the text NULL, NULL itself).
    @Test func readsOfOneStatementAheadAreOneStatementAnsweredEach() throws {
        let connection = try PGConnection(url: try PostgresCluster.shared().newDatabase())
        try connection.execute("CREATE TABLE notes (owner text, body text, at bigint)")
        let owners = ["plain", "it's \"quoted\"", "back\\slash", "a,b", "{braces}", "NULL", "", "naïve ✓"]
        for (index, owner) in owners.enumerated() {
            try connection.query(
                "INSERT INTO notes VALUES (?, ?, ?), (?, ?, ?)",
                [
                    .text(owner), .text("first of \(index)"), .integer(Int64(index)),
                    .text(owner), .text("second of \(index)"), .integer(Int64(index) + 100),
                ])
        }
        try connection.execute("INSERT INTO notes VALUES (NULL, 'no owner', 7)")
        let read = "SELECT body, at FROM notes WHERE owner IS NOT DISTINCT FROM ? AND at >= ? ORDER BY at DESC"
        var valueSets: [[SQLValue]] = owners.map { [.text($0), .integer(0)] }
        valueSets.append([.null, .integer(0)])
        valueSets.append([.text("plain"), .integer(50)])
        let alone = try valueSets.map { try connection.query(read, $0).rows }

        try connection.beginReadingAhead(valueSets.map { (read, $0) })
        try connection.execute("DELETE FROM notes")  // the answers were read before it
        for (index, values) in valueSets.enumerated() {
            #expect(try connection.query(read, values).rows == alone[index], "\(values)")
        }
        try connection.execute("ROLLBACK")
        connection.transactionEnded()
        // Prepared once, and run on its cached plan: one made for its values would be made again
        // on every call (see `sendAhead`). (The query's own text does not hold the words joined.)
        let batched = try connection.query(
            """
            SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE position('WITH ' || 'ORDINALITY' IN statement) > 0
            """)
        #expect(batched.rows == [["1", "0"]])
        #expect(alone[0].count == 2 && alone[owners.count] == [["no owner", "7"]] && alone[owners.count + 1] == [["second of 0", "100"]])
    }

    /// A batch's tier 0 for a re-report and for new installs is one statement: each install gets
    /// its own rows, so the re-report finds its install and reads no click, and a new one from
    /// the click's network claims it.
    @Test func aBatchsTier0ReadsAnswerEachInstallWithItsOwnRows() throws {
        let fixture = try Fixture()
        let backend = fixture.backend
        let database = fixture.database
        let known = try Self.oneBatch(backend, [Self.report("p", instance: "known")])[0].get()
        try database.execute(
            """
            INSERT INTO clicks (click_id, project_id, created_at, ip_key, platform)
            VALUES ('the-click', 'p', \(Self.now.milliseconds - 60_000), '198.51.100.7', 'ios')
            """)
        let outcomes = try Self.oneBatch(backend, [Self.report("p", instance: "known"), Self.report("p", instance: "new-one")])
        let again = try outcomes[0].get()
        let new = try outcomes[1].get()
        #expect(!again.isNew && again.install.id == known.install.id)
        #expect(new.isNew && new.install.id != known.install.id)
        #expect(new.install.match.clickID == "the-click", "\(new.install.match)")
        #expect(try database.query("SELECT install_id FROM clicks WHERE click_id = 'the-click'").text(0, 0) == new.install.id)
    }

    /// Writes of one batch sent without waiting (`runUnanswered`) are seen by the writes after
    /// them: an event finds the install stored just before it in the batch (its install, read
    /// ahead at the batch's start, was not found then, and the batch ran again a write at a
    /// time), and of two events with one client id, one is stored and the other is told it is
    /// the same (the second insert, refused, fails the batch's first run).
    @Test func writesOfOneBatchSeeTheWritesBeforeThem() throws {
        let fixture = try Fixture()
        let backend = fixture.backend
        let database = fixture.database

        let install = Mutex<Result<InstallOutcome, any Error>?>(nil)
        let events = Mutex<[Int: Result<(eventID: String, duplicate: Bool, skan: SKANValues?), any Error>]>([:])
        Self.holdingTheLane(backend) { done in
            done.enter()
            backend.installs.report(
                Self.report("p", instance: "fresh"), policy: MatchingPolicy(), installID: "install-1", skan: nil,
                notify: nil, delivery: nil
            ) { result in
                install.withLock { $0 = result }
                done.leave()
            }
            for index in 0..<3 {
                done.enter()
                let event = EventRecord(
                    projectID: "p", install: .instance("fresh"), name: "purchase",
                    clientEventID: index == 0 ? nil : "order-7", occurredAt: Self.now, receivedAt: Self.now)
                backend.events.record(event, eventID: "event-\(index)", skan: nil, notify: nil, delivery: nil) { result in
                    events.withLock { $0[index] = result }
                    done.leave()
                }
            }
        }

        #expect(try install.withLock { try $0!.get() }.isNew)
        let recorded = try events.withLock { state in try (0..<3).map { try state[$0]!.get() } }
        #expect(recorded[0].eventID == "event-0" && !recorded[0].duplicate)
        #expect(recorded[1].eventID == "event-1" && !recorded[1].duplicate)
        #expect(recorded[2].eventID == "event-1" && recorded[2].duplicate, "\(recorded[2])")
        #expect(try database.query("SELECT count(*) FROM events WHERE install_id = 'install-1'").integer(0, 0) == 2)
        #expect(try database.query("SELECT count(*) FROM installs WHERE install_instance_id = 'fresh'").integer(0, 0) == 1)
    }

    /// A re-report's link comes with it, whichever way tier 0 found the install (by its instance
    /// id, by its device id): read in tier 0's row, with the batch's BEGIN.
    @Test func aReReportCarriesItsLinkWhicheverWayItWasFound() throws {
        let fixture = try Fixture()
        let backend = fixture.backend
        let database = fixture.database
        try database.execute("INSERT INTO links (id, project_id, short_code, created_at, updated_at) VALUES ('summer-link', 'p', 'summer', 0, 0)")
        try database.execute("INSERT INTO links (id, project_id, short_code, created_at, updated_at) VALUES ('other-link', 'p', 'other', 0, 0)")
        for (click, link) in [("click-1", "summer-link"), ("click-2", "other-link")] {
            try database.execute(
                """
                INSERT INTO clicks (click_id, project_id, link_id, created_at, ip_key, platform)
                VALUES ('\(click)', 'p', '\(link)', \(Self.now.milliseconds - 60_000), '198.51.100.7', 'ios')
                """)
        }
        func report(_ identity: InstallIdentity) throws -> InstallOutcome {
            let report = InstallReport(
                projectID: "p", reporter: "linkrunner", identity: identity,
                signals: InstallSignals(time: Self.now, ipKey: "198.51.100.7", platform: .ios))
            return try Self.oneBatch(backend, [report])[0].get()
        }

        let first = try report(InstallIdentity(installInstanceID: "with-instance"))
        let firstLink = try #require(first.link?.id)
        #expect(first.isNew && first.install.match.linkID == firstLink)
        let again = try report(InstallIdentity(installInstanceID: "with-instance"))
        #expect(!again.isNew && again.install.id == first.install.id)
        #expect(again.link?.id == firstLink, "\(String(describing: again.link))")

        let second = try report(InstallIdentity(deviceID: "device-9"))
        let secondLink = try #require(second.link?.id)
        #expect(second.isNew && secondLink != firstLink)
        let byDevice = try report(InstallIdentity(installInstanceID: "new-instance", deviceID: "device-9"))
        #expect(!byDevice.isNew && byDevice.install.id == second.install.id)
        #expect(byDevice.link?.id == secondLink, "\(String(describing: byDevice.link))")
    }

    /// The candidates are read in tier 0's statement, only when tier 0's lookups find no row
    /// (`InstallRepository.sameInstallStatement`): a re-report reads no clicks. When tier 0's rows
    /// turn out not to be the install (a device that looks the same: another device id, the same
    /// fingerprint; a reinstall: a new instance id, the IDFV of an install that has one), the
    /// candidates are read in the transaction then, and the install is still matched.
    @Test func candidatesAreReadWithTier0OnlyWhenItFindsNothing() throws {
        let fixture = try Fixture()
        let backend = fixture.backend
        let database = fixture.database
        for (click, minutesAgo, network) in [
            ("older-click", 2, "198.51.100.7"), ("newer-click", 1, "198.51.100.7"),
            ("reinstall-click", 1, "198.51.100.8"),
        ] {
            try database.execute(
                """
                INSERT INTO clicks (click_id, project_id, created_at, ip_key, platform)
                VALUES ('\(click)', 'p', \(Self.now.milliseconds - Int64(minutesAgo) * 60_000), '\(network)', 'ios')
                """)
        }
        func report(device: String) -> InstallReport {
            InstallReport(
                projectID: "p", reporter: "linkforty", identity: InstallIdentity(deviceID: device, fingerprint: "same-look"),
                signals: InstallSignals(time: Self.now, ipKey: "198.51.100.7", platform: .ios))
        }
        /// The rows of the statement sent ahead: tier 0's, the candidates'.
        func readAhead(_ report: InstallReport) throws -> (tier0: Int, candidates: Int) {
            let reads = InstallRepository.readsAhead(report, policy: MatchingPolicy())
            #expect(reads.count == 1)
            let rows = try database.query(reads[0].sql, reads[0].values)
            let tier0 = (0..<rows.rows.count).filter { rows.integer($0, 0) != nil }.count
            return (tier0, rows.rows.count - tier0)
        }

        // Nothing known yet: both clicks of the network.
        #expect(try readAhead(report(device: "device-a")) == (0, 2))
        let first = try Self.oneBatch(backend, [report(device: "device-a")])[0].get()
        #expect(first.isNew && first.install.match.clickID == "newer-click")

        // Known by device id and fingerprint: its rows, no click.
        #expect(try readAhead(report(device: "device-a")) == (2, 0))
        let again = try Self.oneBatch(backend, [report(device: "device-a")])[0].get()
        #expect(!again.isNew && again.install.id == first.install.id)

        // Another device that looks the same: the fingerprint's row, which is not it.
        #expect(try readAhead(report(device: "device-b")) == (1, 0))
        let other = try Self.oneBatch(backend, [report(device: "device-b")])[0].get()
        #expect(other.isNew && other.install.id != first.install.id)
        #expect(other.install.match.clickID == "older-click", "\(other.install.match)")

        // A reinstall: the IDFV's row, which is another install.
        func reinstall(_ instance: String) -> InstallReport {
            InstallReport(
                projectID: "p", reporter: "linkrunner", identity: InstallIdentity(installInstanceID: instance, idfv: "idfv-1"),
                signals: InstallSignals(time: Self.now, ipKey: "198.51.100.9", platform: .ios, idfv: "idfv-1"))
        }
        _ = try Self.oneBatch(backend, [reinstall("first-instance")])[0].get()
        var second = reinstall("second-instance")
        second.signals.ipKey = "198.51.100.8"
        #expect(try readAhead(second) == (1, 0))
        let reinstalled = try Self.oneBatch(backend, [second])[0].get()
        #expect(reinstalled.isNew && reinstalled.install.reinstall)
        #expect(reinstalled.install.match.clickID == "reinstall-click", "\(reinstalled.install.match)")
        #expect(try database.query("SELECT count(*) FROM clicks WHERE claimed_at IS NOT NULL").integer(0, 0) == 3)
    }

    /// Two reports of one device found only by its fingerprint (LinkForty without a device id),
    /// in one batch: the second is the first's install, as on SQLite's one writer. Its tier 0,
    /// read ahead before the first was stored, is read again once the first names its keys
    /// (the fingerprint has no unique index to refuse the second insert, as an instance id has).
    @Test func aFingerprintStoredInABatchIsFoundByTheNextReportOfIt() throws {
        let fixture = try Fixture()
        let backend = fixture.backend
        let database = fixture.database
        let report = InstallReport(
            projectID: "p", reporter: "linkforty", identity: InstallIdentity(fingerprint: "one-device"),
            signals: InstallSignals(time: Self.now, ipKey: "198.51.100.7", platform: .ios))
        let outcomes = try Self.oneBatch(backend, [report, report, report]).map { try $0.get() }
        #expect(outcomes.filter(\.isNew).count == 1, "\(outcomes.map(\.isNew))")
        #expect(Set(outcomes.map(\.install.id)).count == 1)
        #expect(try database.query("SELECT count(*) FROM installs WHERE fingerprint = 'one-device'").integer(0, 0) == 1)
    }

    /// Writes of one key (an install's instance id) keep to one lane, so they commit one after
    /// another: two inserts of one instance on two lanes each wait for the other's uncommitted row,
    /// and crossed pairs deadlocked (seen in `init-launch`, whose re-reports sometimes come while
    /// the first launch is in flight). Writes without a key take turns.
    ///
    /// What is checked is the lanes each group's writes ran on; whether two writes of different
    /// lanes also overlapped in time depends on the machine's load, and is not.
    @Test func writesOfOneKeyKeepToOneLane() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let backend = try PGStoreBackend(url: url, readers: 2, writeLanes: 4)
        defer { try? backend.close() }
        /// The most writes of one group (`index % groups`) that ran at once, and the lanes each
        /// group's writes ran on.
        func run(groups: Int, key: @escaping (Int) -> String?) -> (mostAtOnceInAGroup: Int, lanes: [Int: Set<Int>]) {
            let state = Mutex<(running: [Int: Int], most: Int, lanes: [Int: Set<Int>])>(([:], 0, [:]))
            let done = DispatchGroup()
            for index in 0..<60 {
                done.enter()
                let group = index % groups
                backend.writer.write(
                    laneKey: key(index),
                    { _ in
                        state.withLock {
                            $0.running[group, default: 0] += 1
                            $0.most = max($0.most, $0.running[group]!)
                            $0.lanes[group, default: []].insert(PGWriter.currentLane ?? -1)
                        }
                        usleep(2_000)  // a write that takes a moment, so that one of another lane would overlap it
                        state.withLock { $0.running[group]! -= 1 }
                    }, completion: { _ in done.leave() })
            }
            done.wait()
            return state.withLock { ($0.most, $0.lanes) }
        }
        // Ten keys: a key's lane comes from its hash, seeded per process, and four keys all fell
        // in one of the three lanes about once in 27 runs.
        let keyed = run(groups: 10) { "instance-\($0 % 10)" }
        #expect(keyed.mostAtOnceInAGroup == 1 && keyed.lanes.values.allSatisfy { $0.count == 1 }, "\(keyed)")
        #expect(keyed.lanes.values.reduce(into: Set()) { $0.formUnion($1) }.count > 1, "keys spread over the lanes: \(keyed.lanes)")
        let unkeyed = run(groups: 4) { _ in nil }
        #expect(unkeyed.lanes.values.allSatisfy { $0.count == 3 }, "writes in turn spread over the three lanes: \(unkeyed.lanes)")
    }

    /// A statement sent ahead has run when its answer is asked for, answers the first query of the
    /// same statement and values only, and one refused is thrown as itself.
    @Test func statementsSentAheadRunOnceAndARefusalIsThrownAsItself() throws {
        let connection = try PGConnection(url: try PostgresCluster.shared().newDatabase())
        try connection.execute("CREATE TABLE numbers (n integer PRIMARY KEY)")
        let insert = "INSERT INTO numbers VALUES ($1)"
        try connection.beginReadingAhead([(insert, [.integer(1)]), ("SELECT count(*) FROM numbers", [])])
        #expect(try connection.query("SELECT count(*) AS rows FROM numbers").integer(0, 0) == 1)  // run already
        #expect(try connection.query(insert, [.integer(1)]).affected == 1)  // its answer, not a second insert
        let again = #expect(throws: PGError.self) { try connection.query(insert, [.integer(1)]) }
        #expect(again?.isUniqueViolation == true)
        try connection.execute("ROLLBACK")
        connection.transactionEnded()

        // A read asked for twice ahead is sent once; its answer serves both asks, then no more.
        try connection.execute("CREATE SEQUENCE counter")
        let next = "SELECT nextval('counter')"
        try connection.beginReadingAhead([(next, []), (next, [])])
        #expect(try connection.query(next).integer(0, 0) == 1)
        #expect(try connection.query(next).integer(0, 0) == 1)
        #expect(try connection.query(next).integer(0, 0) == 2)
        try connection.execute("ROLLBACK")
        connection.transactionEnded()

        try connection.execute("BEGIN")
        let refused = #expect(throws: PGError.self) { try connection.runAhead([(insert, [.integer(2)]), (insert, [.integer(2)])]) }
        #expect(refused?.isUniqueViolation == true, "\(String(describing: refused))")
        try connection.execute("ROLLBACK")
        #expect(try connection.query("SELECT count(*) FROM numbers").integer(0, 0) == 0)
    }

    /// Unanswered INSERTs of one text in a row go as one statement of their rows
    /// (`MultiRowInsert`, in powers of two), sent before anything else is: a statement after them
    /// sees them all, a refused row is heard as a write sent unanswered, and a ROLLBACK drops
    /// the rows not sent yet.
    @Test func insertsSentUnansweredInARowGoAsOneStatement() throws {
        let connection = try PGConnection(url: try PostgresCluster.shared().newDatabase())
        try connection.execute("CREATE TABLE notes (id integer PRIMARY KEY, body text, at bigint)")
        let insert = "INSERT INTO notes (id, body, at)\nVALUES (?, ?, ?)"

        try connection.execute("BEGIN")
        connection.defersWrites = true
        for id in 1...11 {
            try connection.runUnanswered(insert, [.integer(Int64(id)), id == 3 ? .null : .text("note \(id)"), .integer(Int64(id) * 10)])
        }
        #expect(try connection.query("SELECT count(*), sum(at), count(body) FROM notes").rows == [["11", "660", "10"]])
        try connection.runUnanswered(insert, [.integer(12), .text("after the read"), .integer(0)])
        try connection.execute("UPDATE notes SET at = at + 1 WHERE id = 12")
        #expect(try connection.commitReadingSetting("attributiond.changed") == nil)
        connection.transactionEnded()
        #expect(try connection.query("SELECT at FROM notes WHERE id = 12").integer(0, 0) == 1)
        let texts = try connection.query("SELECT statement FROM pg_prepared_statements WHERE statement LIKE 'INSERT INTO notes%'")
        #expect(Set(texts.rows.map { $0[0]!.components(separatedBy: "), (").count }) == [8, 2, 1])

        try connection.execute("BEGIN")
        connection.defersWrites = true
        for id in [20, 1, 21] { try connection.runUnanswered(insert, [.integer(Int64(id)), .text("again"), .integer(0)]) }
        let heard = #expect(throws: PGError.self) { try connection.query("SELECT count(*) FROM notes") }
        #expect(heard?.isUniqueViolation == true && heard?.sentUnanswered == true, "\(String(describing: heard))")
        try connection.execute("ROLLBACK")
        connection.transactionEnded()

        try connection.execute("BEGIN")
        connection.defersWrites = true
        try connection.runUnanswered(insert, [.integer(30), .text("never sent"), .integer(0)])
        try connection.execute("ROLLBACK")
        connection.transactionEnded()
        #expect(try connection.query("SELECT count(*) FROM notes").integer(0, 0) == 12)
    }

    /// A write sent unanswered goes without waiting: its refusal is heard with the next statement
    /// that waits (a read, the COMMIT), as itself and marked so, and the transaction cannot commit.
    @Test func aWriteSentUnansweredIsAnsweredWithTheNextStatement() throws {
        let url = try PostgresCluster.shared().newDatabase()
        let connection = try PGConnection(url: url)
        try connection.execute("CREATE TABLE numbers (n integer PRIMARY KEY)")
        let insert = "INSERT INTO numbers VALUES ($1)"

        try connection.execute("BEGIN")
        connection.defersWrites = true
        try connection.runUnanswered(insert, [.integer(1)])
        try connection.runUnanswered(insert, [.integer(2)])
        #expect(try connection.query("SELECT count(*) FROM numbers").integer(0, 0) == 2)  // answered in the read's round trip
        try connection.runUnanswered(insert, [.integer(3)])
        #expect(try connection.commitReadingSetting("attributiond.changed") == nil)
        connection.transactionEnded()
        #expect(try connection.query("SELECT count(*) FROM numbers").integer(0, 0) == 3)

        try connection.execute("BEGIN")
        connection.defersWrites = true
        try connection.runUnanswered(insert, [.integer(4)])
        try connection.runUnanswered(insert, [.integer(1)])  // taken: refused, and nobody waited to hear it
        try connection.runUnanswered(insert, [.integer(5)])
        let heard = #expect(throws: PGError.self) { try connection.query("SELECT count(*) FROM numbers") }
        #expect(heard?.isUniqueViolation == true && heard?.sentUnanswered == true, "\(String(describing: heard))")
        // Whatever comes next in the aborted transaction hears the same; a COMMIT never passes
        // for one (PostgreSQL would answer it with a silent rollback).
        #expect(throws: PGError.self) { try connection.runUnanswered(insert, [.integer(6)]) }
        let commit = #expect(throws: PGError.self) { try connection.execute("COMMIT") }
        #expect(commit?.sentUnanswered == true)
        #expect(throws: PGError.self) { try connection.commitReadingSetting("attributiond.changed") }
        try connection.execute("ROLLBACK")
        connection.transactionEnded()
        #expect(try connection.query("SELECT count(*) FROM numbers").integer(0, 0) == 3)

        // In a pool's transaction the refusal is what fails it, whatever the body made of it
        // when it heard: here the body swallows it and throws something else.
        struct Other: Error {}
        let pool = PGPool(url: url, size: 1, errors: .store)
        let failure = #expect(throws: PGError.self) {
            try pool.transaction(deferringWrites: true) { session in
                try session.runUnanswered(insert, [.integer(1)])
                _ = try? session.query("SELECT 1")
                throw Other()
            }
        }
        #expect(failure?.sentUnanswered == true && failure?.isUniqueViolation == true, "\(String(describing: failure))")

        // Without `defersWrites` the same call waits and throws at once.
        try connection.execute("BEGIN")
        #expect(throws: PGError.self) { try connection.runUnanswered(insert, [.integer(2)]) }
        try connection.execute("ROLLBACK")
        connection.transactionEnded()
        #expect(try connection.query("SELECT count(*) FROM numbers").integer(0, 0) == 3)
    }
}
