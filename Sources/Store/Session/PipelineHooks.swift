public import SQLValues
import StoreContracts

/// What a session that pipelines its writes (PostgreSQL's, in `PGWriter`'s batches) does
/// differently: statements sent ahead, writes sent without waiting for their answer, answers read
/// ahead forgotten. Shared SQL calls these hooks where pipelining pays; a session that runs each
/// statement as it comes (SQLite's) answers them by running each statement, below, so reading how
/// SQLite stores a row needs nothing of this file.
@_spi(StoreInternals) public protocol PipelineHooks {
    /// Sends `statements` that the caller runs next whatever they return, in one round trip
    /// where each is one (PostgreSQL: `PGConnection.runAhead`); SQLite's are function calls.
    func runAhead(_ statements: [(sql: String, values: [SQLValue])]) throws
    /// Runs `sql`, a write whose answer the caller reads only to know it changed a row. Where
    /// the session sends such writes without waiting (PostgreSQL, in a writer's batch:
    /// `PGConnection.runUnanswered`), `unanswered` goes instead and one row is taken as changed:
    /// it must be refused (an error) wherever `sql` would change no row, so that a wrong guess
    /// aborts the batch, which then runs again with every write answered.
    @discardableResult
    func run<each Value: StoreArgument>(_ sql: String, orUnanswered unanswered: String, _ values: repeat each Value) throws -> Int
    /// Runs a write whose answer nobody reads; where the session may, without waiting for it
    /// (`PGConnection.runUnanswered`).
    func runUnanswered<each Value: StoreArgument>(_ sql: String, _ values: repeat each Value) throws
    /// Forgets the answers read ahead (PostgreSQL) whose values name any of `keys`: a write of
    /// the transaction just stored rows under them, which those answers, read before, miss.
    func forgetReadsAhead(naming keys: [String])
    /// What this transaction stored of the install before, which an answer read ahead of it
    /// (PostgreSQL: with the batch's BEGIN) does not show; nil where reads follow the writes.
    func storedEarlier(ofInstall installID: String) -> StoredEarlier?
    /// Notes what a write of the transaction stored of the install, for `storedEarlier`.
    func noteStored(_ stored: StoredEarlier, ofInstall installID: String)
}

/// An install's events and payments stored earlier in one transaction, as counting reads them.
@_spi(StoreInternals) public struct StoredEarlier: Sendable {
    public var earliestByName: [String: Int64] = [:]
    public var hasRevenueEvent = false
    public var hasLivePayment = false
    public var signedUp = false
    public init() {}

    public mutating func merge(_ other: StoredEarlier) {
        earliestByName.merge(other.earliestByName) { min($0, $1) }
        hasRevenueEvent = hasRevenueEvent || other.hasRevenueEvent
        hasLivePayment = hasLivePayment || other.hasLivePayment
        signedUp = signedUp || other.signedUp
    }
}

/// SQLite runs each statement as it comes: nothing is sent ahead or left unanswered.
@_spi(StoreInternals) extension SQLiteConnection: PipelineHooks {
    public func runAhead(_ statements: [(sql: String, values: [SQLValue])]) {}

    public func run<each Value: StoreArgument>(_ sql: String, orUnanswered unanswered: String, _ values: repeat each Value) throws -> Int {
        try run(sql, repeat each values)
    }

    public func runUnanswered<each Value: StoreArgument>(_ sql: String, _ values: repeat each Value) throws {
        try run(sql, repeat each values)
    }

    public func forgetReadsAhead(naming keys: [String]) {}

    public func storedEarlier(ofInstall installID: String) -> StoredEarlier? { nil }

    public func noteStored(_ stored: StoredEarlier, ofInstall installID: String) {}
}
