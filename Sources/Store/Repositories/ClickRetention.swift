public import Attribution
public import Dispatch
import Foundation
public import Lifecycle

/// Deletes clicks nobody can be attributed to any more: older than the longest attribution window
/// in use (projects, templates, links) plus a margin. In batches of `batchSize`, each its own
/// write, so the writer is never held for long and other writes run between batches. Clicks are
/// inserted in time order, so the oldest sit at the lowest rowids: no time index is needed.
public struct ClickRetention: Sendable {
    private let pruner: any ClickPruning
    public var batchSize = 1000
    public var marginHours = 24

    public init(database: Database) { pruner = ClickPruner(source: database) }
    init(pruner: any ClickPruning) { self.pruner = pruner }

    /// Hours of clicks to keep: the longest window in use plus the margin.
    public func automaticHours() throws -> Int { Int(try pruner.longestWindowHours() ?? 168) + marginHours }

    /// Deletes every click created before `cutoff`; returns how many. A test-mode project's
    /// clicks are kept by its own clock instead: `testProjectCutoffs` holds their cutoffs.
    @discardableResult
    public func deleteClicks(before cutoff: Timestamp, testProjectCutoffs: [String: Timestamp] = [:]) throws -> Int {
        try pruner.deleteClicks(before: cutoff, testProjectCutoffs: testProjectCutoffs, batchSize: batchSize)
    }
}

protocol ClickPruning: Sendable {
    func longestWindowHours() throws -> Int64?
    func deleteClicks(before cutoff: Timestamp, testProjectCutoffs: [String: Timestamp], batchSize: Int) throws -> Int
}

/// Retention's SQL on either backend. On PostgreSQL each batch first takes a transaction-level
/// advisory lock and stops when another node holds it: one node prunes at a time.
struct ClickPruner<Source: SessionSource>: ClickPruning {
    let source: Source
    static var advisoryLock: Int64 { 0x6174_7472_5265_7400 }  // "attrRet\0"

    func longestWindowHours() throws -> Int64? {
        try source.read { connection in
            try connection.queryOne(
                """
                SELECT max(h) FROM (
                    SELECT max(attribution_window_hours) AS h FROM projects
                    UNION ALL SELECT max(attribution_window_hours) FROM templates
                    UNION ALL SELECT max(attribution_window_hours) FROM links) AS windows
                """
            ) { $0.optionalInt(0) } ?? nil
        }
    }

    /// False when another node is pruning (PostgreSQL); always true on SQLite's one writer.
    private static func mayPrune(_ connection: Source.Session) throws -> Bool {
        guard Source.Session.hasConcurrentWriters else { return true }
        return try connection.queryOne("SELECT pg_try_advisory_xact_lock(?)", advisoryLock) { $0.bool(0) } ?? false
    }

    func deleteClicks(before cutoff: Timestamp, testProjectCutoffs: [String: Timestamp], batchSize: Int) throws -> Int {
        var total = 0
        for (projectID, projectCutoff) in testProjectCutoffs.sorted(by: { $0.key < $1.key }) {
            total += try source.writeSession { connection in
                guard try Self.mayPrune(connection) else { return 0 }
                return try connection.run("DELETE FROM clicks WHERE project_id = ? AND created_at < ?", projectID, projectCutoff.milliseconds)
            }
        }
        let others = "project_id NOT IN (SELECT id FROM projects WHERE test_mode)"
        var from: Int64 = 0
        while true {
            let (deleted, next) = try source.writeSession { connection -> (Int, Int64?) in
                guard try Self.mayPrune(connection) else { return (0, nil) }
                guard
                    let (oldestID, oldestTime) = try connection.queryOne(
                        "SELECT id, created_at FROM clicks WHERE id >= ? AND \(others) ORDER BY id LIMIT 1", from,
                        map: { ($0.int(0), $0.int(1)) }), oldestTime < cutoff.milliseconds
                else { return (0, nil) }
                let deleted = try connection.run(
                    """
                    DELETE FROM clicks WHERE id >= ? AND id < ? AND created_at < ? AND \(others)
                    """, oldestID, oldestID + Int64(batchSize), cutoff.milliseconds)
                return (deleted, oldestID + Int64(batchSize))
            }
            total += deleted
            guard let next else { return total }
            from = next
        }
    }
}

/// Runs `ClickRetention` periodically.
public final class RetentionJob: Service, @unchecked Sendable {
    public let serviceName = "click retention"
    private let timer: any DispatchSourceTimer
    private let queue = DispatchQueue(label: "attributiond.retention", qos: .utility)
    private let interval: DispatchTimeInterval

    /// - Parameter hours: clicks to keep in hours; nil: the automatic value. Never started for 0.
    /// - Parameter testProjectTimes: "now" of each test-mode project, by id.
    public init(
        retention: ClickRetention, hours: Int?, clock: any Clock,
        testProjectTimes: @escaping @Sendable () -> [String: Timestamp] = { [:] },
        every interval: DispatchTimeInterval = .seconds(600), log: @escaping @Sendable (Int, Timestamp) -> Void
    ) {
        self.interval = interval
        timer = DispatchSource.makeTimerSource(queue: queue)
        // Resumed now and scheduled by `start`: a source released while suspended traps.
        timer.schedule(deadline: .distantFuture)
        timer.setEventHandler {
            guard let keep = try? hours ?? retention.automaticHours() else { return }
            let cutoff = clock.now().adding(seconds: -Int64(keep) * 3600)
            let testCutoffs = testProjectTimes().mapValues { $0.adding(seconds: -Int64(keep) * 3600) }
            if let deleted = try? retention.deleteClicks(before: cutoff, testProjectCutoffs: testCutoffs), deleted > 0 { log(deleted, cutoff) }
        }
        timer.resume()
    }

    /// The first pass 30 s from now, then one every interval.
    public func start() { timer.schedule(deadline: .now() + .seconds(30), repeating: interval, leeway: .seconds(5)) }

    /// Cancels the timer; a pass under way finishes on its own queue.
    public func stop(by deadline: DispatchTime) { timer.cancel() }
}
