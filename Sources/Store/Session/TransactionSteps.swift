public import Counting
public import SQLValues
public import StoreContracts

/// The steps of the write scripts (a new install, an event, the rarer counted writes) that the
/// backends take differently. The scripts (`InstallRepository.report`, `Events.record`,
/// `CountedWrites`) say what — "claim this click or learn it is taken", "insert this install
/// unless its instance is stored", "these keys now name an install", "take this install's turn" —
/// and a session says how.
///
/// The defaults below are how a session that has the database to itself and whose statements are
/// function calls takes them (SQLite's one writer): each statement runs as it comes, and nobody
/// else can claim, insert or count between a read and a write. PostgreSQL's session
/// (`PostgresStore/PGTransactionSteps.swift`) sends statements ahead, skips rows another writer
/// holds, and takes turns across its lanes and nodes.
@_spi(StoreInternals) public protocol TransactionSteps {
    /// Claims the click for the install unless another install has it: the claimed click (its
    /// referring site counts the install), nil when taken. `reads` are what the caller runs next
    /// if the claim holds, which a session may send with it.
    func claimClick(
        _ clickID: String, forInstall installID: String, at milliseconds: Int64,
        thenReading reads: @autoclosure () -> [(sql: String, values: [SQLValue])]
    ) throws -> InstallFact.Click?

    /// Inserts an install row (`ScriptSQL.insertInstall`'s columns, in order) unless an install of
    /// its instance id is stored; whether it was inserted.
    func insertInstall<each Value: StoreArgument>(_ values: repeat each Value) throws -> Bool

    /// A new install is stored under these identity keys (instance id, device id, IDFV,
    /// fingerprint): later reads of the transaction must find it under them.
    func installStored(underKeys keys: [String])

    /// The writes that count the install take their turn on it, before it is read, so that two
    /// cannot both count its first payment, signup or event of a name.
    func takeTurn(on install: EventRecord.InstallReference) throws

    /// What this transaction stored of the install before, where a read of it may not show it
    /// (read ahead of the transaction's earlier writes); nil where reads follow the writes.
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

/// A session that has the database to itself: statements in the order the script says them.
extension TransactionSteps where Self: StoreSession {
    public func claimClick(
        _ clickID: String, forInstall installID: String, at milliseconds: Int64,
        thenReading reads: @autoclosure () -> [(sql: String, values: [SQLValue])]
    ) throws -> InstallFact.Click? {
        try queryOne(ScriptSQL.claimClick, installID, milliseconds, clickID) { InstallFact.Click(referer: $0.optionalString(0)) }
    }

    public func insertInstall<each Value: StoreArgument>(_ values: repeat each Value) throws -> Bool {
        // Tier 0 looked for the instance in this transaction, and nobody else writes: no conflict.
        try run(ScriptSQL.insertInstall, repeat each values) > 0
    }

    public func installStored(underKeys keys: [String]) {}

    public func takeTurn(on install: EventRecord.InstallReference) throws {}

    public func storedEarlier(ofInstall installID: String) -> StoredEarlier? { nil }

    public func noteStored(_ stored: StoredEarlier, ofInstall installID: String) {}
}

/// The scripts' statements each backend's steps run.
@_spi(StoreInternals) public enum ScriptSQL {
    public static let insertInstall = """
        INSERT INTO installs (id, project_id, api, install_instance_id, device_id, idfv, advertising_id, fingerprint, platform,
            os_version, device_model, device_class, app_version, ip, ip_key, user_agent, timezone, utc_offset_min, languages,
            screen_width, screen_height, created_at, last_seen_at, match_type, attributed, confidence, matched_factors,
            click_id, link_id, clicked_at, reinstall, country, explanation, is_test, consent, ad_signals, ip_class,
            rejected_reasons, rejected_click_id, quality_flags)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    /// Where another writer may have stored the instance's install since tier 0 looked.
    public static let insertInstallUnlessInstanceTaken =
        insertInstall + " ON CONFLICT (project_id, install_instance_id) WHERE install_instance_id IS NOT NULL DO NOTHING"

    /// A click claimed answers its referrer (the install is counted by it).
    public static let claimClick = "UPDATE clicks SET install_id = ?, claimed_at = ? WHERE click_id = ? AND claimed_at IS NULL RETURNING referer"
    /// The same, skipping a click another transaction is claiming (two claims each waiting for
    /// the other's click would deadlock).
    public static let claimClickUnlessClaimed = """
        UPDATE clicks SET install_id = ?1, claimed_at = ?2
        WHERE click_id = (SELECT click_id FROM clicks WHERE click_id = ?3 AND claimed_at IS NULL FOR UPDATE SKIP LOCKED)
        RETURNING referer
        """

    /// PostgreSQL's turn on an install: a transaction advisory lock (no row written), named by the
    /// install's instance id where it has one, else its id, as an event names its install by
    /// either. Parameters: the reference twice.
    public static func takeTurn(_ install: EventRecord.InstallReference) -> String {
        switch install {
        case .id: takeTurnByID
        case .instance: takeTurnByInstance
        }
    }
    public static let takeTurnByID = """
        SELECT 1 FROM (SELECT pg_advisory_xact_lock(2039, hashtext(coalesce((SELECT install_instance_id FROM installs WHERE id = ?), ?)))) AS turn
        """
    public static let takeTurnByInstance = "SELECT 1 FROM (SELECT pg_advisory_xact_lock(2039, hashtext(coalesce(?, ?)))) AS turn"
}

@_spi(StoreInternals) extension EventRecord.InstallReference {
    /// The id or instance id it names the install by.
    public var key: String {
        switch self {
        case .id(let id): id
        case .instance(let instance): instance
        }
    }
}
