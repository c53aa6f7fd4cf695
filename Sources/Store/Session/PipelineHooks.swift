public import SQLValues
import StoreContracts

/// What a session that pipelines its writes (PostgreSQL's, in `PGWriter`'s batches) does
/// differently: statements sent ahead, writes sent without waiting for their answer, answers read
/// ahead forgotten. The defaults (below) run each statement as it comes, which is all SQLite's
/// session does: it implements none of this. The write scripts name their steps
/// (`TransactionSteps`) rather than call these.
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
    /// Runs an `INSERT` whose answer nobody reads and whose rows nothing in the transaction reads
    /// before `writeHeld()`; where the session may (PostgreSQL, in a writer's batch), it holds the
    /// row to the end of the batch, where each statement's held rows go as one multi-row INSERT.
    func runHeld(_ sql: String, _ values: [SQLValue]) throws
    /// Writes the rows `runHeld` holds, before a statement that reads them.
    func writeHeld() throws
}

/// A session whose statements are function calls: nothing is sent ahead or left unanswered.
extension PipelineHooks where Self: StoreSession {
    public func runAhead(_ statements: [(sql: String, values: [SQLValue])]) {}

    public func run<each Value: StoreArgument>(_ sql: String, orUnanswered unanswered: String, _ values: repeat each Value) throws -> Int {
        try run(sql, repeat each values)
    }

    public func runUnanswered<each Value: StoreArgument>(_ sql: String, _ values: repeat each Value) throws {
        try run(sql, repeat each values)
    }

    public func runHeld(_ sql: String, _ values: [SQLValue]) throws { _ = try run(sql, values: values) }

    public func writeHeld() {}

    public func forgetReadsAhead(naming keys: [String]) {}
}
