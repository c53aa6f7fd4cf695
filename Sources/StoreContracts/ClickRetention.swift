public import Attribution

/// Deletes clicks nobody can be attributed to any more: older than the longest attribution window
/// in use (projects, templates, links) plus a margin. In batches of `batchSize`, each its own
/// write, so the writer is never held for long and other writes run between batches. Clicks are
/// inserted in time order, so the oldest sit at the lowest rowids: no time index is needed.
public struct ClickRetention: Sendable {
    private let pruner: any ClickPruning
    public var batchSize = 1000
    public var marginHours = 24

    public init(pruner: any ClickPruning) { self.pruner = pruner }

    /// Hours of clicks to keep: the longest window in use plus the margin.
    public func automaticHours() throws -> Int { Int(try pruner.longestWindowHours() ?? 168) + marginHours }

    /// Deletes every click created before `cutoff`; returns how many. A test-mode project's
    /// clicks are kept by its own clock instead: `testProjectCutoffs` holds their cutoffs.
    @discardableResult
    public func deleteClicks(before cutoff: Timestamp, testProjectCutoffs: [String: Timestamp] = [:]) throws -> Int {
        try pruner.deleteClicks(before: cutoff, testProjectCutoffs: testProjectCutoffs, batchSize: batchSize)
    }
}

/// The SQL behind `ClickRetention`, as each backend runs it.
public protocol ClickPruning: Sendable {
    func longestWindowHours() throws -> Int64?
    func deleteClicks(before cutoff: Timestamp, testProjectCutoffs: [String: Timestamp], batchSize: Int) throws -> Int
}
