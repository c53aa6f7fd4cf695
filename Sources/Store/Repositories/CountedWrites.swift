import Counting
import StoreContracts

/// Writes that change rows already counted, wrapped so that `Counting` counts the change: the
/// rows' state is read before and after, in the writing transaction. For the writes that are
/// rare (an erasure, a re-attribution, a deleted link, a user set); the hot paths (clicks, new
/// installs, events, payments) count what they write from what they read anyway.
enum CountedWrites {
    /// The writes that count an install take turns on it (`TransactionSteps.takeTurn`), before
    /// it is read.
    static func takeTurn(onInstall installID: String, _ connection: some StoreSession) throws {
        try connection.takeTurn(on: .id(installID))
    }

    /// The install as its own row counts, with whether it has a live payment and an event with
    /// revenue (its click is not read: these writes change no tally of it); nil when unknown.
    static func install(_ installID: String, _ connection: some StoreSession) throws -> InstallFact? {
        try connection.queryOne(RollupFacts.installByID, installID) { RollupFacts.install(flaggedRow: $0) }
    }

    /// Runs `body`, which changes the installs' rows and what belongs to them (events, payments,
    /// SKAN values) or deletes them, and counts the difference.
    @discardableResult
    static func changingInstalls<T>(_ installIDs: [String], _ connection: some StoreSession, _ body: () throws -> T) throws -> T {
        var before: [String: InstallState] = [:]
        for id in Set(installIDs).sorted() {
            try takeTurn(onInstall: id, connection)
            before[id] = try RollupFacts.state(ofInstall: id, connection)
        }
        let result = try body()
        var deltas = Deltas()
        for (id, old) in before {
            if let new = try RollupFacts.state(ofInstall: id, connection) {
                deltas.append(Counting.change(from: old, to: new))
            } else {
                deltas.append(Counting.contribution(of: old).negated)
            }
        }
        try connection.count(deltas)
        return result
    }

    /// Runs `body`, which changes the install's own row only (its user), and counts the change.
    @discardableResult
    static func changingInstallRow<T>(_ installID: String, _ connection: some StoreSession, _ body: () throws -> T) throws -> T {
        try takeTurn(onInstall: installID, connection)
        guard let old = try install(installID, connection) else { return try body() }
        let result = try body()
        if let new = try install(installID, connection) {
            try connection.count(
                Counting.change(
                    from: InstallState(install: old, events: [], payments: [], skan: []),
                    to: InstallState(install: new, events: [], payments: [], skan: [])))
        }
        return result
    }

    /// Runs `body`, which deletes links of the project among `linkIDs` (those that exist are
    /// read first): their clicks move to "no link", and their installs (whose link is set to
    /// NULL with them) with their events and payments.
    @discardableResult
    static func deletingLinks<T>(projectID: String, _ linkIDs: [String], _ connection: some StoreSession, _ body: () throws -> T) throws -> T {
        var hours: [(linkID: String, hours: [(hour: Int64, clicks: Int64, botClicks: Int64)])] = []
        var installs: [String] = []
        for linkID in linkIDs {
            hours.append((linkID, try connection.rollupClickHours(projectID: projectID, linkID: linkID)))
            installs += try connection.query("SELECT id FROM installs WHERE link_id = ? AND project_id = ?", linkID, projectID) { $0.string(0) }
        }
        let result = try changingInstalls(installs, connection, body)
        var deltas = Deltas()
        for link in hours {
            guard try connection.queryOne("SELECT 1 FROM links WHERE id = ?", link.linkID, map: { $0.int(0) }) == nil else { continue }
            deltas.append(Counting.linkDeleted(projectID: projectID, linkID: link.linkID, hours: link.hours))
        }
        try connection.count(deltas)
        return result
    }
}
