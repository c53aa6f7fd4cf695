public import Counting
public import PostgresClient
public import SQLValues
@_spi(StoreInternals) public import Store
public import StoreContracts

/// How a PostgreSQL session takes the write scripts' steps (`TransactionSteps`): other writers
/// (the lanes of this node's writer, other nodes) commit beside it, and each statement is a round
/// trip.
@_spi(StoreInternals) extension PGConnection: TransactionSteps {
    /// Another transaction may have claimed the click since it was read, or be claiming it now:
    /// the claim skips a click locked by another claim rather than wait for it, and the caller's
    /// cascade runs again without it, as it would once the other committed. The claim and the
    /// reads that follow it go in one round trip.
    public func claimClick(
        _ clickID: String, forInstall installID: String, at milliseconds: Int64,
        thenReading reads: @autoclosure () -> [(sql: String, values: [SQLValue])]
    ) throws -> InstallFact.Click? {
        try runAhead(
            [(ScriptSQL.claimClickUnlessClaimed, [.text(installID), .integer(milliseconds), .text(clickID)])] + reads())
        return try queryOne(ScriptSQL.claimClickUnlessClaimed, installID, milliseconds, clickID) {
            InstallFact.Click(referer: $0.optionalString(0))
        }
    }

    /// Another node may have stored the instance's install since tier 0 looked: the insert does
    /// nothing then. Sent without waiting where the batch allows it, as a plain INSERT, refused
    /// (so the batch runs again, answered) where an install of the instance took its place.
    public func insertInstall<each Value: StoreArgument>(_ values: repeat each Value) throws -> Bool {
        try run(ScriptSQL.insertInstallUnlessInstanceTaken, orUnanswered: ScriptSQL.insertInstall, repeat each values) > 0
    }

    /// Installs reported later in the batch read tier 0 ahead without this one: those of its keys
    /// read again. (Its instance id would be refused by the unique index; its fingerprint, which
    /// has none, would make a second install.)
    public func installStored(underKeys keys: [String]) { forgetReadsAhead(naming: keys) }

    /// A transaction advisory lock, taken across lanes and nodes.
    public func takeTurn(on install: EventRecord.InstallReference) throws {
        _ = try queryOne(ScriptSQL.takeTurn(install), install.key, install.key) { $0.int(0) }
    }

    /// A writer's batch keeps what its writes stored of each install (`PGRollupBatch`): its
    /// reads went ahead with the batch's BEGIN.
    public func storedEarlier(ofInstall installID: String) -> StoredEarlier? { PGRollupBatch.of(self)?.stored[installID] }

    public func noteStored(_ stored: StoredEarlier, ofInstall installID: String) {
        PGRollupBatch.of(self)?.stored[installID, default: StoredEarlier()].merge(stored)
    }
}
