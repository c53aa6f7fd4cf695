import Attribution
import Dispatch
import Foundation
@_spi(StoreInternals) import Store
import StoreContracts

// Install matching against many stored clicks.
//
//   match-bench [--installs 2000] [--sizes 10000,1000000]
//       For each size: fill a temporary database with that many clicks (two per address, spread over
//       72 h), then time N installs: the engine alone (candidates already read) and the whole
//       matching transaction (tier 0, candidate read through the index, engine, claim, insert).
//   match-bench fill --db PATH --clicks N
//       Fill PATH for an HTTP run (scripts/bench install); prints the project's API key.
//
// Addresses 0..<10000 are the ones the peers' install.lua sends (198.18.[0-39].[1-250]).

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func address(_ index: Int) -> String {
    if index < 10_000 { return "198.18.\(index / 250).\(index % 250 + 1)" }
    let n = index - 10_000
    return "10.\(n / 65_536 % 256).\(n / 256 % 256).\(n % 256)"
}

let zones = ["Europe/Paris", "Europe/Paris", "Europe/Berlin", "America/New_York", "Asia/Tokyo"]
let screens: [(Double, Double)] = [(390, 844), (393, 852), (430, 932)]

/// Creates a project and a link, then `count` clicks; returns the project and its API key.
func fill(_ database: Database, clicks count: Int, now: Timestamp) throws -> (Project, String) {
    let projects = SQLiteStore(database: database).projects
    var settings = ProjectSettings()
    settings.iosStoreURL = "https://apps.apple.com/app/id1"
    let created = try projects.create(name: "Bench", settings: settings)
    let link = Link(id: UUID().uuidString.lowercased(), projectID: created.project.id, shortCode: "abc", createdAt: now)
    _ = try SQLiteStore(database: database).links.create(link, codeIsCustom: true)
    var generator = SystemRandomNumberGenerator()
    let addresses = max(1, count / 2)
    var inserted = 0
    while inserted < count {
        let batch = min(50_000, count - inserted)
        try database.writer.barrier { connection in
            try connection.execute("BEGIN")
            for offset in 0..<batch {
                let index = inserted + offset
                let time = Timestamp(milliseconds: now.milliseconds - Int64.random(in: 60_000..<259_200_000, using: &generator))
                let screen = screens[index % screens.count]
                let click = Click(
                    clickID: TimeOrderedID.generate(at: time, using: &generator), projectID: created.project.id,
                    linkID: link.id, source: .link, createdAt: time, ip: address(index % addresses),
                    ipKey: address(index % addresses),
                    userAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) Safari/604.1 #\(index % 7)",
                    platform: .ios, osVersion: "17.4.1", deviceClass: .iphone, screenWidth: screen.0, screenHeight: screen.1,
                    pixelRatio: 3, timezone: zones[index % zones.count], languages: ["fr-FR", "fr"])
                try ClickRepository.insert(click, connection)
            }
            try connection.execute("COMMIT")
        }
        inserted += batch
    }
    return (created.project, created.apiKey.key)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }

func temporaryDatabase() throws -> (Database, URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("match-bench-\(UUID().uuidString)")
    return (try Database(path: folder.appendingPathComponent("bench.sqlite").path), folder)
}

if CommandLine.arguments.dropFirst().first == "fill" {
    guard let path = option("--db"), let count = option("--clicks").flatMap(Int.init) else {
        FileHandle.standardError.write(Data("usage: match-bench fill --db PATH --clicks N\n".utf8))
        exit(2)
    }
    let database = try Database(path: path)
    let (_, key) = try fill(database, clicks: count, now: Timestamp(Date()))
    try database.flushAndCheckpoint()
    print(key)
    exit(0)
}

let installs = option("--installs").flatMap(Int.init) ?? 2000
let sizes = (option("--sizes") ?? "10000,1000000").split(separator: ",").compactMap { Int($0) }
print("installs per size: \(installs)")
print("stored clicks   fill s   engine p50 µs   engine p99 µs   matching txn p50 µs   matching txn p99 µs   attributed")
for size in sizes {
    let (database, folder) = try temporaryDatabase()
    defer { try? FileManager.default.removeItem(at: folder) }
    let now = Timestamp(Date())
    let fillStart = Date()
    let (project, _) = try fill(database, clicks: size, now: now)
    let fillSeconds = Date().timeIntervalSince(fillStart)
    let repository = SQLiteStore(database: database).installs
    let policy = MatchingPolicy(project: project.settings)
    var engineTimes: [Double] = []
    var transactionTimes: [Double] = []
    var attributed = 0
    let addresses = max(1, size / 2)
    for n in 0..<installs {
        let ip = address((n * 7919) % min(addresses, 10_000))
        let signals = InstallSignals(
            time: now, ipKey: ip, platform: .ios, osVersion: "17.4.1",
            screen: ScreenSize(width: 1170, height: 2532), timezone: "Europe/Paris", languages: ["fr_FR"])
        // The engine alone, on candidates read beforehand.
        let candidates = try database.read { connection in
            try connection.query(
                """
                SELECT click_id, created_at, screen_width, screen_height, timezone FROM clicks
                WHERE project_id = ? AND ip_key = ? AND is_bot = 0 AND claimed_at IS NULL ORDER BY created_at DESC LIMIT 200
                """, project.id, ip
            ) { row in
                CandidateClick(
                    clickID: row.string(0), linkID: nil, createdAt: Timestamp(milliseconds: row.int(1)), platform: .ios,
                    osVersion: "17.4.1", deviceClass: .iphone,
                    screen: ScreenSize(points: row.optionalDouble(2), row.optionalDouble(3), scale: 3),
                    timezone: row.optionalString(4), languages: ["fr-FR", "fr"])
            }
        }
        let engineStart = DispatchTime.now()
        _ = MatchingEngine.probabilistic(install: signals, candidates: candidates, policy: policy)
        engineTimes.append(Double(DispatchTime.now().uptimeNanoseconds - engineStart.uptimeNanoseconds) / 1000)
        // The whole transaction, as POST /api/sdk/v1/install runs it.
        let report = InstallReport(projectID: project.id, reporter: "linkforty", identity: InstallIdentity(deviceID: "device-\(n)"), signals: signals)
        let start = DispatchTime.now()
        let outcome = try repository.reportAndWait(report, policy: policy, installID: UUID().uuidString.lowercased())
        transactionTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1000)
        if outcome.install.match.attributed { attributed += 1 }
    }
    engineTimes.sort()
    transactionTimes.sort()
    print(
        String(
            format: "%13d   %6.1f   %13.1f   %13.1f   %19.1f   %19.1f   %10d", size, fillSeconds,
            percentile(engineTimes, 0.5), percentile(engineTimes, 0.99),
            percentile(transactionTimes, 0.5), percentile(transactionTimes, 0.99), attributed))
}
