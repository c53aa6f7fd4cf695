import Attribution
import Dispatch
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts

// A project's stats over its last N days (UTC days, today included), from the rollups and from
// the rows alone, alternating, on one database: the same-run baseline of scripts/bench-dashboard.
// With --generate, first fills a new database with a project's 90 days: the rows go in through the
// store's writer, so the rollup triggers count them as the server's own writes would.
//
//   stats-bench --db PATH [--days 90] [--rounds 5]
//   stats-bench --db PATH --generate [--clicks 10000000] [--installs 1000000] [--events 2000000] [--payments 100000]

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let path = option("--db") else {
    FileHandle.standardError.write(Data("usage: stats-bench --db PATH [--days 90] [--rounds 5]\n".utf8))
    exit(2)
}
let days = Int64(option("--days") ?? "") ?? 90
if CommandLine.arguments.contains("--generate") {
    try generate(
        path: path, clicks: Int(option("--clicks") ?? "") ?? 10_000_000, installs: Int(option("--installs") ?? "") ?? 1_000_000,
        events: Int(option("--events") ?? "") ?? 2_000_000, payments: Int(option("--payments") ?? "") ?? 100_000)
    exit(0)
}
let rounds = Int(option("--rounds") ?? "") ?? 5
let database = try Database(path: path)
let store = SQLiteStore(database: database)
guard let project = try store.projects.list().first else { fatalError("no project in \(path)") }
let stats = Stats(source: database)
let day: Int64 = 86_400_000
let end = Timestamp(milliseconds: (Timestamp(Date()).milliseconds / day + 1) * day)
let since = Timestamp(milliseconds: end.milliseconds - days * day)

func milliseconds(_ body: () throws -> ProjectStats) rethrows -> (Double, ProjectStats) {
    let start = DispatchTime.now().uptimeNanoseconds
    let result = try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000_000, result)
}

var fromRollups: [Double] = []
var fromRows: [Double] = []
var answers: (ProjectStats, ProjectStats)?
for _ in 0..<rounds {
    let (a, rollupAnswer) = try milliseconds { try stats.stats(projectID: project.id, since: since, until: end, currency: "USD") }
    let (b, rowAnswer) = try milliseconds { try stats.statsFromRows(projectID: project.id, since: since, until: end, currency: "USD") }
    fromRollups.append(a)
    fromRows.append(b)
    answers = (rollupAnswer, rowAnswer)
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let (rollupAnswer, rowAnswer) = answers!
print(
    String(
        format: "stats over %d days: rollups %.1f ms, rows %.1f ms (median of %d), rows / rollups %.0f×", days,
        median(fromRollups), median(fromRows), rounds, median(fromRows) / median(fromRollups)))
print(
    "same counts: \(rollupAnswer.totals.clicks == rowAnswer.totals.clicks && rollupAnswer.totals.installs == rowAnswer.totals.installs && rollupAnswer.totals.events == rowAnswer.totals.events) (clicks \(rollupAnswer.totals.clicks), installs \(rollupAnswer.totals.installs), events \(rollupAnswer.totals.events))"
)
