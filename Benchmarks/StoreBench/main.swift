import Dispatch
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts
import Synchronization

// Group commit vs one transaction per write: W concurrent writers each insert a row, wait for the
// acknowledgement (commit), insert the next, for D seconds. Rounds alternate between the modes so
// machine noise hits both alike; medians are reported.
//
//   BENCHMARKS=1 swift run -c release store-bench [--writers 64] [--seconds 3] [--rounds 3]

func option(_ name: String, _ fallback: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else { return fallback }
    return value
}

let writers = option("--writers", 64)
let seconds = option("--seconds", 3)
let rounds = option("--rounds", 3)
let table = Migration(
    name: "0001_bench.sql",
    sql: """
        CREATE TABLE events (id INTEGER PRIMARY KEY, install_id TEXT NOT NULL, name TEXT NOT NULL, data TEXT, received_at INTEGER NOT NULL);
        CREATE INDEX events_by_install ON events(install_id, received_at);
        """)

/// Acknowledged writes per second for one configuration.
func measure(maxBatch: Int, synchronous: Database.Synchronous) throws -> Double {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let database = try Database(
        path: folder.appendingPathComponent("bench.sqlite").path, synchronous: synchronous,
        maxBatch: maxBatch, migrations: [table])
    let acknowledged = Atomic<Int>(0)
    let running = Atomic<Bool>(true)
    let finished = DispatchGroup()

    @Sendable func writeNext(_ writer: Int, _ n: Int) {
        guard running.load(ordering: .relaxed) else {
            finished.leave()
            return
        }
        database.write(
            { connection in
                try connection.run(
                    "INSERT INTO events (install_id, name, data, received_at) VALUES (?, ?, ?, ?)",
                    "install-\(writer)", "purchase", #"{"amount":9.99}"#, n)
            },
            completion: { result in
                if case .success = result { acknowledged.add(1, ordering: .relaxed) }
                writeNext(writer, n + 1)
            })
    }

    let start = DispatchTime.now()
    for writer in 0..<writers {
        finished.enter()
        writeNext(writer, 0)
    }
    Thread.sleep(forTimeInterval: Double(seconds))
    running.store(false, ordering: .relaxed)
    finished.wait()
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    return Double(acknowledged.load(ordering: .relaxed)) / elapsed
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

print("writers=\(writers) seconds=\(seconds) rounds=\(rounds)")
print("synchronous  group-commit w/s  one-txn-per-write w/s  ratio")
for synchronous in [Database.Synchronous.normal, .full] {
    var group: [Double] = []
    var single: [Double] = []
    for _ in 0..<rounds {
        group.append(try measure(maxBatch: 256, synchronous: synchronous))
        single.append(try measure(maxBatch: 1, synchronous: synchronous))
    }
    let g = median(group)
    let s = median(single)
    print(String(format: "%-11@  %16.0f  %21.0f  %5.2f", synchronous.rawValue as NSString, g, s, g / s))
}
