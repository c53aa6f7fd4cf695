import Attribution
import Dispatch
import Foundation
import PostgresClient
@_spi(StoreInternals) import PostgresStore
@_spi(StoreInternals) import Store
import StoreContracts
import Synchronization

// Clicks stored through each backend's ClickStore, as the redirect path stores them: W concurrent
// clients each record a click, wait for its commit, record the next, for D seconds. Rounds
// alternate SQLite (its writer's group commit) and PostgreSQL (PGWriter's batches on the
// database at --postgres); medians of acknowledged clicks per second and of p99 latency.
//
//   pg-store-bench --postgres postgres://… [--writers 64] [--seconds 3] [--rounds 3]
//   scripts/bench-postgres starts a throwaway cluster and runs this.

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

let writers = Int(option("--writers") ?? "") ?? 64
let seconds = Double(option("--seconds") ?? "") ?? 3
let rounds = Int(option("--rounds") ?? "") ?? 3
guard let postgresURL = option("--postgres") else {
    FileHandle.standardError.write(Data("usage: pg-store-bench --postgres postgres://… [--writers N] [--seconds S] [--rounds R]\n".utf8))
    exit(2)
}

struct Figures {
    var perSecond: Double
    var p99Milliseconds: Double
}

/// Acknowledged clicks per second and the p99 of record → commit, on `store`.
func measure(_ store: any ClickStore, projectID: String, linkID: String) -> Figures {
    let acknowledged = Atomic<Int>(0)
    let running = Atomic<Bool>(true)
    let latencies = Mutex<[Double]>([])
    let finished = DispatchGroup()
    @Sendable func recordNext(_ writer: Int, _ n: Int) {
        guard running.load(ordering: .relaxed) else {
            finished.leave()
            return
        }
        let started = DispatchTime.now().uptimeNanoseconds
        let click = Click(
            clickID: "w\(writer)-\(n)-\(UUID().uuidString)", projectID: projectID, linkID: linkID, source: .link,
            createdAt: Timestamp(milliseconds: 1_700_000_000_000 + Int64(n)), ip: "203.0.113.\(writer % 250)",
            ipKey: "203.0.113.\(writer % 250)", userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)",
            platform: .ios, osVersion: "17.4", deviceClass: .iphone)
        store.record(countTowardLimit: false, click) { result in
            if case .success = result {
                acknowledged.add(1, ordering: .relaxed)
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                latencies.withLock { $0.append(elapsed) }
            }
            recordNext(writer, n + 1)
        }
    }
    let start = Date()
    for writer in 0..<writers {
        finished.enter()
        recordNext(writer, 0)
    }
    Thread.sleep(forTimeInterval: seconds)
    running.store(false, ordering: .relaxed)
    finished.wait()
    let elapsed = Date().timeIntervalSince(start)
    let sorted = latencies.withLock { $0 }.sorted()
    let p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
    return Figures(perSecond: Double(acknowledged.load(ordering: .relaxed)) / elapsed, p99Milliseconds: p99)
}

func sqliteRound() throws -> Figures {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-store-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = SQLiteStore(database: try Database(path: folder.appendingPathComponent("bench.sqlite").path))
    let project = try store.projects.create(name: "Bench", settings: ProjectSettings()).project
    let link = try store.links.create(
        Link(id: "bench-link", projectID: project.id, shortCode: "bench", createdAt: Timestamp(milliseconds: 0)),
        codeIsCustom: true)
    return measure(store.clicks, projectID: project.id, linkID: link.id)
}

func postgresRound() throws -> Figures {
    let admin = try PGConnection(url: postgresURL)
    try admin.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public;")
    let pool = PGPool(url: postgresURL, size: 4, errors: .store)
    _ = try PGMigrator.migrate(url: postgresURL)
    let project = try pool.projectStore().create(name: "Bench", settings: ProjectSettings()).project
    let link = try pool.linkStore().create(
        Link(
            id: "bench-link", projectID: project.id, shortCode: "bench",
            createdAt: Timestamp(milliseconds: 0)), codeIsCustom: true)
    return measure(PGClickStore(pool: pool, writer: PGWriter(pool: pool)), projectID: project.id, linkID: link.id)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

var sqlite: [Figures] = []
var postgres: [Figures] = []
for round in 1...rounds {
    sqlite.append(try sqliteRound())
    postgres.append(try postgresRound())
    print(
        String(
            format: "round %d: SQLite %.0f/s p99 %.1f ms, PostgreSQL %.0f/s p99 %.1f ms", round,
            sqlite.last!.perSecond, sqlite.last!.p99Milliseconds, postgres.last!.perSecond, postgres.last!.p99Milliseconds))
}
let s = median(sqlite.map(\.perSecond))
let p = median(postgres.map(\.perSecond))
let sp99 = median(sqlite.map(\.p99Milliseconds))
let pp99 = median(postgres.map(\.p99Milliseconds))
print(
    String(
        format:
            "clicks (%d writers, %.0f s, %d rounds, medians): SQLite %.0f/s p99 %.1f ms; PostgreSQL %.0f/s p99 %.1f ms; ratio %.2f, p99 ratio %.1f×",
        writers, seconds, rounds, s, sp99, p, pp99, p / s, pp99 / max(sp99, 0.001)))
