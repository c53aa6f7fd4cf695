import Dispatch
import Foundation
import StoreContracts
import Synchronization
import Testing

@_spi(StoreInternals) @testable import Store

private let createCounter = Migration(
    name: "0001_t.sql", sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, thread INTEGER, n INTEGER, UNIQUE (thread, n));")

@Suite struct WriterTests {
    @Test func concurrentWritersFromManyThreadsAreAllCommittedAndAcknowledged() throws {
        let temp = try TemporaryDatabase(migrations: [createCounter])
        let acknowledged = Atomic<Int>(0)
        let failures = Atomic<Int>(0)
        let group = DispatchGroup()
        for thread in 0..<32 {
            DispatchQueue.global().async(group: group) {
                for n in 0..<50 {
                    group.enter()
                    temp.database.write(
                        { connection in
                            try connection.run("INSERT INTO t (thread, n) VALUES (?, ?)", thread, n)
                        },
                        completion: { result in
                            switch result {
                            case .success: acknowledged.add(1, ordering: .relaxed)
                            case .failure: failures.add(1, ordering: .relaxed)
                            }
                            group.leave()
                        })
                }
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(acknowledged.load(ordering: .relaxed) == 1600)
        #expect(failures.load(ordering: .relaxed) == 0)
        let rows = try temp.database.read { try $0.queryOne("SELECT count(*) FROM t") { $0.int(0) } }
        #expect(rows == 1600)
    }

    @Test func aFailingWriteIsRolledBackAloneAndItsBatchCommits() throws {
        let temp = try TemporaryDatabase(migrations: [createCounter])
        try temp.database.writeAndWait { try $0.run("INSERT INTO t (thread, n) VALUES (0, 0)") }
        let group = DispatchGroup()
        let outcomes = Mutex<[Int: Bool]>([:])
        for n in 1...20 {
            group.enter()
            temp.database.write(
                { connection in
                    try connection.run("INSERT INTO t (thread, n) VALUES (1, ?)", n)
                    // Every fifth write inserts a duplicate after its first row: the whole write must vanish.
                    if n % 5 == 0 { try connection.run("INSERT INTO t (thread, n) VALUES (0, 0)") }
                },
                completion: { result in
                    outcomes.withLock { $0[n] = (try? result.get()) != nil }
                    group.leave()
                })
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        let stored = Set(try temp.database.read { try $0.query("SELECT n FROM t WHERE thread = 1") { Int($0.int(0)) } })
        let succeeded = Set(outcomes.withLock { $0.filter(\.value).map(\.key) })
        #expect(stored == succeeded)
        #expect(stored == Set((1...20).filter { $0 % 5 != 0 }))
    }

    @Test func writeErrorsReachTheCallerWithSQLitesMessage() throws {
        let temp = try TemporaryDatabase(migrations: [createCounter])
        #expect {
            try temp.database.writeAndWait { try $0.run("INSERT INTO missing VALUES (1)") }
        } throws: { error in
            (error as? SQLiteError)?.message.contains("missing") == true
        }
    }

    @Test func completionsWithADeliveryAreHandedToItAfterTheCommit() throws {
        let temp = try TemporaryDatabase(migrations: [createCounter])
        let delivered = Atomic<Int>(0)
        let group = DispatchGroup()
        let target = DispatchQueue(label: "delivery target")
        let key = DispatchSpecificKey<Bool>()
        target.setSpecific(key: key, value: true)
        let ranOnTarget = Mutex<[Int: Bool]>([:])
        let committed = Mutex<[Int: Bool]>([:])
        for n in 1...10 {
            group.enter()
            temp.database.write(
                delivery: WriteDelivery(target: ObjectIdentifier(target)) { work in
                    delivered.add(1, ordering: .relaxed)
                    target.async(execute: work)
                },
                { connection in
                    try connection.run("INSERT INTO t (thread, n) VALUES (9, ?)", n)
                    // The fifth fails alone; its failure is delivered the same way.
                    if n == 5 { try connection.run("INSERT INTO t (thread, n) VALUES (9, 1)") }
                },
                completion: { result in
                    ranOnTarget.withLock { $0[n] = DispatchQueue.getSpecific(key: key) == true }
                    // Visible to a reader by the time the completion runs: delivered only after COMMIT.
                    let stored = (try? temp.database.read { try $0.queryOne("SELECT 1 FROM t WHERE thread = 9 AND n = ?", n) { _ in true } }) ?? nil
                    committed.withLock { $0[n] = (try? result.get()) != nil && stored == true }
                    group.leave()
                })
        }
        #expect(group.wait(timeout: .now() + 10) == .success)
        // One hand-over per commit at most: ten writes, however they were batched.
        #expect((1...10).contains(delivered.load(ordering: .relaxed)))
        #expect(ranOnTarget.withLock { $0 }.values.allSatisfy { $0 })
        let outcomes = committed.withLock { $0 }
        #expect(outcomes[5] == false)
        #expect((1...10).filter { $0 != 5 }.allSatisfy { outcomes[$0] == true })
    }

    @Test func aCommitHandsEachTargetAllItsCompletionsAtOnce() throws {
        let temp = try TemporaryDatabase(migrations: [createCounter])
        // A first write holds the writer until every other write is queued, so those all commit
        // together; they are queued only once it runs, so none joins its batch.
        let writer = temp.database.writer
        let commitsBefore = writer.commitCount
        let writesBefore = writer.committedWriteCount
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        temp.database.write(
            { _ in
                started.signal()
                release.wait()
            }, completion: { _ in })
        #expect(started.wait(timeout: .now() + 10) == .success)
        let targets = [DispatchQueue(label: "loop A"), DispatchQueue(label: "loop B")]
        let sends = Mutex<[Int]>([0, 0])
        let finishedOn = Mutex<[Int: Int]>([:])
        let group = DispatchGroup()
        for n in 0..<20 {
            let which = n % 2
            let target = targets[which]
            group.enter()
            temp.database.write(
                delivery: WriteDelivery(target: ObjectIdentifier(target)) { work in
                    sends.withLock { $0[which] += 1 }
                    target.async(execute: work)
                },
                { connection in
                    try connection.run("INSERT INTO t (thread, n) VALUES (7, ?)", n)
                },
                completion: { result in
                    if (try? result.get()) != nil { finishedOn.withLock { $0[n] = which } }
                    group.leave()
                })
        }
        release.signal()
        #expect(group.wait(timeout: .now() + 10) == .success)
        #expect(sends.withLock { $0 } == [1, 1])
        #expect(finishedOn.withLock { $0 } == Dictionary(uniqueKeysWithValues: (0..<20).map { ($0, $0 % 2) }))
        // Two transactions: the holding write alone, then the twenty together (counted for /metrics).
        #expect(writer.commitCount - commitsBefore == 2 && writer.committedWriteCount - writesBefore == 21)
    }

    @Test func theWriterRestartsTheWALOnceItPassesItsLimit() throws {
        let temp = try TemporaryDatabase(walRestartFrames: 200, migrations: [createCounter])
        let wal = temp.path + "-wal"
        func walBytes() throws -> Int { (try FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0 }
        // Each write commits on its own and rewrites a few pages: 3,000 of them add up to far more
        // than 200 frames, so without restarts the WAL would only grow.
        var highest = 0
        for n in 0..<3_000 {
            try temp.database.writeAndWait { try $0.run("INSERT INTO t (thread, n) VALUES (7, ?)", n) }
            highest = max(highest, try walBytes())
        }
        // Without restarts it reaches ~6,200 frames (25 MB). The margin allows for a restart that
        // found the checkpointer busy and waits 100 ms to try again, on a loaded test machine.
        let frameBytes = 4096 + 24
        #expect(highest < 1_500 * frameBytes, "the WAL reached \(highest) bytes")
        #expect(try temp.database.read { try $0.queryOne("SELECT count(*) FROM t WHERE thread = 7") { $0.int(0) } } == 3_000)
    }

    @Test func textIsBoundByteForByte() throws {
        let temp = try TemporaryDatabase(migrations: [Migration(name: "0001_s.sql", sql: "CREATE TABLE s (id INTEGER PRIMARY KEY, v TEXT);")])
        let values = ["", "a", "héllo 🌍 — ok", String(repeating: "long text ", count: 100), "\u{2028}"]
        for (id, value) in values.enumerated() {
            try temp.database.writeAndWait { try $0.run("INSERT INTO s (id, v) VALUES (?, ?)", id, value) }
        }
        let stored = try temp.database.read { connection in
            try connection.query("SELECT v, length(CAST(v AS BLOB)), typeof(v) FROM s ORDER BY id") { ($0.string(0), $0.int(1), $0.string(2)) }
        }
        #expect(stored.map(\.0) == values)
        #expect(stored.map(\.1) == values.map { Int64($0.utf8.count) })
        #expect(stored.allSatisfy { $0.2 == "text" })  // the empty string too, not NULL
    }

    @Test func readersSeeCommittedWrites() throws {
        let temp = try TemporaryDatabase(migrations: [createCounter])
        try temp.database.writeAndWait { try $0.run("INSERT INTO t (thread, n) VALUES (7, 7)") }
        let n = try temp.database.read { try $0.queryOne("SELECT n FROM t WHERE thread = 7") { $0.int(0) } }
        #expect(n == 7)
    }
}

@Suite struct JSONTextTests {
    @Test func stringArraysRoundTripThroughTheFastPathAndTheFallback() {
        for strings in [[], ["fr-FR", "fr"], ["a\"b", "back\\slash", "line\nbreak"], ["é", "😀", ""]] {
            #expect(JSONText.decodeStrings(JSONText.encode(strings)) == strings, "\(strings)")
        }
        #expect(JSONText.decodeSimpleStrings(Array(#"["a","b"]"#.utf8)) == ["a", "b"])
        #expect(JSONText.decodeSimpleStrings(Array(#"["a\"b"]"#.utf8)) == nil)  // escapes take the full decoder
        #expect(JSONText.decodeStrings(#"[ "spaced" , "ok" ]"#) == ["spaced", "ok"])
        #expect(JSONText.decodeStrings("garbage") == [])
    }
}
