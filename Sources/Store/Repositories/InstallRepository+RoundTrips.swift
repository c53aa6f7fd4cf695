import Attribution
import SQLValues
import StoreContracts

/// The matching transaction where each statement is a round trip (`statementsAreRoundTrips`:
/// PostgreSQL): tier 0's lookups and the cascade's candidates as one statement, and that statement
/// sent ahead with the writer's batch. SQLite runs `InstallRepository.sameInstall`'s lookups one
/// by one, and never reaches this file.
extension InstallRepository {
    /// Tier 0 on PostgreSQL, where each statement is a round trip to another process: the lookups
    /// of the keys the report has, as one `UNION ALL` (only present keys, so every parameter is
    /// bound and a cached plan fits every call; one text per combination of keys). The rows found
    /// are used as `sameInstall` uses them: by IDFV only when nothing else names the install.
    static func sameInstallInOneTrip<C: StoreSession>(
        _ report: InstallReport, policy: MatchingPolicy,
        _ connection: C
    ) throws -> Tier0 {
        let identity = report.identity
        let reads = AttributionCascade.reads(for: report.signals, policy: policy)
        guard let statement = sameInstallStatement(report, policy: policy, candidates: reads) else {
            return Tier0(install: nil, adopted: false, sameIDFV: nil)
        }
        typealias Found = (branch: Int64, install: KnownInstall, stored: StoredInstall, link: Tier0.Link)
        var rows: [Found] = []
        var candidates: [PrefetchedCandidate] = []
        _ = try connection.query(statement.sql, values: statement.values) { row in
            // A candidate's row has no tier-0 branch; its columns come after tier 0's.
            guard let branch = row.optionalInt(0) else {
                candidates.append(
                    CandidateFilter.prefetched(
                        row, from: Int32(KnownInstallSQL.width),
                        defaultWindowHours: policy.defaultWindowHours))
                return
            }
            rows.append(
                (
                    branch, KnownInstallSQL.known(row, from: 1), stored(row, from: KnownInstallSQL.storedFrom),
                    Tier0.Link(
                        link: row.optionalString(KnownInstallSQL.linkFrom) == nil
                            ? nil
                            : LinkRepository.link(PrefixedColumns(row, prefix: "l_")))
                ))
        }
        // The candidates come only when tier 0 found no row; else they were not read.
        let read = reads.isEmpty || !rows.isEmpty ? nil : (reads: reads, rows: candidates)
        // In the order the lookups run one by one (a UNION ALL's branches need not come back in order).
        func found(by branch: Int64) -> [KnownInstall] { rows.filter { $0.branch == branch }.map(\.install) }
        var known = found(by: 1) + found(by: 2)
        let byIDFV = found(by: 3)
        var sameIDFV: Bool?
        if let idfv = identity.idfv, idfv == report.signals.idfv { sameIDFV = !byIDFV.isEmpty }
        if known.isEmpty { known += byIDFV }
        known += found(by: 4)
        guard let found = MatchingEngine.sameInstall(identity, among: known, now: report.signals.time, policy: policy) else {
            return Tier0(install: nil, adopted: false, sameIDFV: sameIDFV, candidates: read)
        }
        // Its row has the whole install: no second read.
        let row = rows.first { $0.install.installID == found.installID }
        return Tier0(
            install: row?.stored, adopted: found.installInstanceID == nil, sameIDFV: sameIDFV, lastSeenAt: found.lastSeenAt,
            link: row?.link)
    }

    /// Tier 0's statement on PostgreSQL (nil: the report has no key to look for), with the
    /// cascade's `candidates` reads when there are any: read only when tier 0's lookups find no
    /// row, each candidate in a row of its own after tier 0's columns (`KnownInstallSQL.width`),
    /// which are NULL in it. A re-report (most reports) reads no clicks for nothing, and a new
    /// install's candidates cost no statement of their own; one statement, so one snapshot.
    static func sameInstallStatement(
        _ report: InstallReport, policy: MatchingPolicy,
        candidates: [CandidateRead] = []
    ) -> (sql: String, values: [SQLValue])? {
        let identity = report.identity
        var lookups: [KnownInstallSQL.Lookup] = []
        var values: [SQLValue] = []
        func branch(_ lookup: KnownInstallSQL.Lookup, _ keys: [SQLValue]) {
            lookups.append(lookup)
            values.append(.text(report.projectID))
            values += keys
        }
        if let instance = identity.installInstanceID { branch(.instance, [.text(instance)]) }
        if let device = identity.deviceID { branch(.device, [.text(device)]) }
        if let idfv = identity.idfv { branch(.idfv, [.text(idfv)]) }
        if let fingerprint = identity.fingerprint {
            let window = (policy.sameInstallSeconds + MatchingEngine.lastSeenResolutionSeconds) * 1000
            branch(.fingerprint, [.text(fingerprint), .integer(report.signals.time.milliseconds - window)])
        }
        guard !lookups.isEmpty else { return nil }
        guard let prefetch = CandidateFilter.prefetchStatement(projectID: report.projectID, reads: candidates) else {
            return (KnownInstallSQL.tier0Text(lookups, candidates: []), values)
        }
        return (KnownInstallSQL.tier0Text(lookups, candidates: candidates.map { CandidateFilter.of($0).0 }), values + prefetch.values)
    }

    /// What an install's transaction reads first on PostgreSQL whatever it finds: tier 0, with
    /// the cascade's candidates unless tier 0's lookups find a row (a re-report needs none).
    /// Sent with the batch's BEGIN, one round trip for every install in the batch. Read at the
    /// batch's start, they miss what installs before them in the batch wrote: a new install makes
    /// the answers under its keys read again (`forgetReadsAhead`), and a click claimed meanwhile
    /// fails the claim and is read again. Reads on two lanes or nodes miss each other's in the
    /// same way; there an instance stored meanwhile fails the insert and is found by it.
    static func readsAhead(_ report: InstallReport, policy: MatchingPolicy) -> [(sql: String, values: [SQLValue])] {
        let candidates = AttributionCascade.reads(for: report.signals, policy: policy)
        if let tier0 = sameInstallStatement(report, policy: policy, candidates: candidates) { return [tier0] }
        return CandidateFilter.prefetchStatement(projectID: report.projectID, reads: candidates).map { [$0] } ?? []
    }
}
