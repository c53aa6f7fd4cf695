import Attribution
import Counting
import Foundation
import SQLValues
import StoreContracts

/// Installs on either backend (`SessionSource`); the SQL and the matching transaction are
/// `InstallRepository`'s.
struct Installs<Source: SessionSource>: InstallStore {
    let source: Source

    /// Finds the install again (tier 0) or matches and stores it, all in one write transaction on
    /// the single writer: a click is claimed by at most one install, whatever runs concurrently.
    public func report(
        _ report: InstallReport, policy: MatchingPolicy, installID: String, skan: SKANStore.Context? = nil,
        notify: Notifier<InstallOutcome>? = nil, delivery: WriteDelivery? = nil,
        completion: @escaping @Sendable (Result<InstallOutcome, any Error>) -> Void
    ) {
        let identity = report.identity
        let key = identity.installInstanceID ?? identity.deviceID ?? identity.idfv ?? identity.fingerprint
        source.write(
            delivery: delivery, readingAhead: InstallRepository.readsAhead(report, policy: policy), laneKey: key,
            { connection in
                var outcome = try InstallRepository.report(report, policy: policy, installID: installID, connection)
                outcome.skan = try SKANStore.evaluate(installID: outcome.install.id, context: skan, now: report.signals.time, connection)
                if outcome.isNew { try OutboxRepository.notify(notify, outcome, installID: outcome.install.id, connection) }
                return outcome
            }, completion: completion)
    }

    public func reportAndWait(_ report: InstallReport, policy: MatchingPolicy, installID: String) throws -> InstallOutcome {
        try source.writeSession { connection in try InstallRepository.report(report, policy: policy, installID: installID, connection) }
    }

    public func find(id: String, projectID: String) throws -> StoredInstall? {
        try source.read { try InstallRepository.find(id: id, projectID: projectID, $0) }
    }

    /// Every install of a project with how it was attributed.
    public func attributionRecords(projectID: String) throws -> [InstallAttributionRecord] {
        try source.read { connection in
            try connection.query(
                """
                SELECT id, attributed, match_type, confidence, click_id, clicked_at, created_at, rejected_reasons, rejected_click_id
                FROM installs WHERE project_id = ?
                """, projectID
            ) { row in
                var record = InstallAttributionRecord(
                    id: row.string(0), attributed: row.bool(1), matchType: row.string(2), confidence: row.double(3),
                    clickID: row.optionalString(4), clickedAt: row.optionalInt(5), createdAt: row.int(6))
                record.rejectedReasons = row.optionalString(7).map(JSONText.decodeStrings) ?? []
                record.rejectedClickID = row.optionalString(8)
                return record
            }
        }
    }

    /// The project an install belongs to (install ids are unique across projects).
    public func projectOf(installID: String) throws -> String? {
        try source.read { try $0.queryOne("SELECT project_id FROM installs WHERE id = ?", installID) { $0.string(0) } }
    }
}

extension Installs where Source == Database {
    init(database: Database) { self.init(source: database) }
}

/// The matching transaction and the installs' SQL, for both backends.
enum InstallRepository {

    /// `last_seen_at` moves only when it is at least this old. SDKs report the install again at every
    /// app launch, so re-reports are most of `init`'s traffic; updating on each would rewrite a page of
    /// the installs table, at a random place, per launch.
    static let lastSeenResolutionMilliseconds = MatchingEngine.lastSeenResolutionSeconds * 1000

    /// How often a claim lost to another node's install is followed by a fresh match (the
    /// candidates read again see the other claim committed).
    static let claimAttempts = 8

    static func report<C: StoreSession>(_ report: InstallReport, policy: MatchingPolicy, installID: String, _ connection: C) throws -> InstallOutcome
    {
        let now = report.signals.time
        let tier0 = try sameInstall(report, policy: policy, connection)
        if let existing = tier0.install {
            let stale = now.milliseconds - lastSeenResolutionMilliseconds
            let adoptedInstance = tier0.adopted ? report.identity.installInstanceID : nil
            // A re-report's writes go without waiting where the batch allows it (answered with
            // the batch's COMMIT). Seen within the resolution, as the row just read says, the
            // update would change nothing (the row's time only moves forward): not sent.
            if (tier0.lastSeenAt?.milliseconds ?? .min) <= stale {
                try connection.runUnanswered(touchLastSeen, now.milliseconds, existing.id, stale)
            }
            if report.consent?.isEmpty == false || report.adSignals?.isEmpty == false {
                // What a later launch tells of consent and ad signals is kept over what the first told.
                try AdPlatformRepository.mergeReported(consent: report.consent, signals: report.adSignals, installID: existing.id, connection)
            }
            if let instance = adoptedInstance {
                // An install another SDK family reported (found by IDFV) takes this one's instance
                // id, so the instance's later calls find it.
                try connection.runUnanswered(adoptInstance, instance, existing.id)
            }
            // On PostgreSQL the link came with tier 0's row.
            return try withLink(InstallOutcome(install: existing, isNew: false), readWithIt: tier0.link, connection)
        }
        let signals = report.signals
        let reinstall = try seenBefore(report, sameIDFV: tier0.sameIDFV, connection)
        var clicks = TransactionClicks(connection: connection, projectID: report.projectID, defaultWindowHours: policy.defaultWindowHours)
        if let candidates = tier0.candidates { clicks.prefetched(candidates.rows, for: candidates.reads) }
        var match = MatchResult.organic
        var explanation: MatchExplanation?
        /// The claimed click, as the install's referring site is counted from it.
        var claimed: InstallFact.Click?
        for _ in 0..<claimAttempts {
            (match, explanation) = try AttributionCascade.attributeExplaining(
                signals, windowHoursLimit: report.windowHoursLimit,
                policy: policy, clicks: clicks)
            guard match.attributed, let clickID = match.clickID else { break }
            // Claimed, or taken by another install since it was read: then the cascade runs again
            // without it.
            if let click = try connection.claimClick(
                clickID, forInstall: installID, at: now.milliseconds, thenReading: linkReads(match, projectID: report.projectID))
            {
                claimed = click
                break
            }
            clicks.taken.insert(clickID)
            match = .organic
        }
        let inserted = try connection.insertInstall(
            installID, report.projectID, report.reporter, report.identity.installInstanceID, report.identity.deviceID, signals.idfv,
            signals.advertisingID, report.identity.fingerprint, signals.platform?.rawValue, signals.osVersion,
            report.deviceModel, signals.deviceClass?.rawValue, report.appVersion, report.ip, signals.ipKey, report.userAgent,
            signals.timezone, signals.utcOffsetMinutes, signals.languages.isEmpty ? nil : JSONText.encode(signals.languages),
            signals.screen.map { Double($0.width) }, signals.screen.map { Double($0.height) }, now.milliseconds, now.milliseconds,
            match.matchType.rawValue, match.attributed, match.confidence, JSONText.encode(match.matchedFactors), match.clickID,
            match.linkID, match.clickedAt?.milliseconds, reinstall, report.country,
            explanation.map { Self.explained($0, taken: clicks.taken) }.flatMap { $0.isEmpty ? nil : $0.text }, report.isTest,
            report.consent.flatMap { CodableText.encode($0, unlessEmpty: \.isEmpty) },
            report.adSignals.flatMap { CodableText.encode($0, unlessEmpty: \.isEmpty) }, signals.addressClass?.rawValue,
            match.rejectedReasons.isEmpty ? nil : JSONText.encode(match.rejectedReasons.map(\.rawValue)), match.rejectedClickID,
            match.flags.isEmpty ? nil : JSONText.encode(match.flags.map(\.rawValue)))
        if !inserted, let instance = report.identity.installInstanceID {
            // Another writer stored this instance's install since tier 0 looked: that one is the
            // install, and the click claimed for this one is free again.
            if let clickID = match.clickID {
                try connection.run("UPDATE clicks SET install_id = NULL, claimed_at = NULL WHERE click_id = ? AND install_id = ?", clickID, installID)
            }
            guard let stored = try connection.queryOne(KnownInstallSQL.byInstance, report.projectID, instance, map: { $0.string(0) }),
                let existing = try find(id: stored, projectID: report.projectID, connection)
            else {
                throw StoreError.conflict("install_instance_id '\(instance)' is being registered; try again")
            }
            return try withLink(InstallOutcome(install: existing, isNew: false), connection)
        }
        let identity = report.identity
        connection.installStored(underKeys: [identity.installInstanceID, identity.deviceID, identity.idfv, identity.fingerprint].compactMap { $0 })
        try connection.count(
            Counting.install(
                InstallFact(
                    projectID: report.projectID, createdAt: now.milliseconds, isTest: report.isTest, attributed: match.attributed,
                    linkID: match.linkID, matchType: match.matchType.rawValue, appleAds: match.matchedFactors == [AppleAdsAttribution.factor],
                    confidence: match.confidence, signedUp: false, hasLivePayment: false, hasRevenueEvent: false,
                    platform: signals.platform?.rawValue,
                    osVersion: signals.osVersion, country: report.country, click: match.clickID == nil ? nil : claimed)))
        var install = StoredInstall(
            id: installID, projectID: report.projectID, match: match, reinstall: reinstall, createdAt: now,
            platform: signals.platform?.rawValue, isTest: report.isTest, reporter: report.reporter)
        install.addressClass = signals.addressClass
        var outcome = InstallOutcome(install: install, isNew: true)
        outcome.consent = report.consent.flatMap { $0.isEmpty ? nil : $0 }
        return try withLink(outcome, connection)
    }

    /// The explanation with the clicks another install claimed while this one was matched (its
    /// claim failed, and the cascade ran again without them).
    static func explained(_ explanation: MatchExplanation, taken: Set<String>) -> MatchExplanation {
        var explanation = explanation
        explanation.claimedByOtherInstalls = taken.sorted()
        return explanation
    }

    static let touchLastSeen = "UPDATE installs SET last_seen_at = ? WHERE id = ? AND last_seen_at <= ?"
    static let adoptInstance = "UPDATE installs SET install_instance_id = ? WHERE id = ? AND install_instance_id IS NULL"
    static let linkOfInstall = "SELECT \(LinkRepository.columns) FROM links WHERE id = ? AND project_id = ?"
    static let templateOfLink = """
        SELECT \(TemplateRepository.columns) FROM templates
        WHERE project_id = ? AND id = (SELECT template_id FROM links WHERE id = ? AND project_id = ?)
        """

    /// The reads `withLink` makes for an install of `match`, as they may be sent ahead.
    static func linkReads(_ match: MatchResult, projectID: String) -> [(sql: String, values: [SQLValue])] {
        guard match.attributed, match.matchedFactors != [AppleAdsAttribution.factor], let linkID = match.linkID else { return [] }
        let project = SQLValue.text(projectID)
        let link = SQLValue.text(linkID)
        return [(linkOfInstall, [link, project]), (templateOfLink, [project, link, project])]
    }

    /// The outcome with the attributed link and its template, read on the transaction's connection
    /// (the link already read with the install when `readWithIt` says so).
    static func withLink(_ outcome: InstallOutcome, readWithIt known: Tier0.Link? = nil, _ connection: some StoreSession) throws -> InstallOutcome {
        if outcome.install.match.attributed, outcome.install.match.matchedFactors == [AppleAdsAttribution.factor] {
            var outcome = outcome
            outcome.appleAds = try AppleAdsRepository.claim(installID: outcome.install.id, connection)?.answer
            if let answer = outcome.appleAds {
                outcome.appleAdsNames = try AppleAdsNameRepository.names(of: answer, projectID: outcome.install.projectID, connection)
            }
            return outcome
        }
        guard outcome.install.match.attributed, let linkID = outcome.install.match.linkID else { return outcome }
        var outcome = outcome
        let projectID = outcome.install.projectID
        if let known {
            outcome.link = known.link
        } else {
            outcome.link = try connection.queryOne(linkOfInstall, linkID, projectID) { LinkRepository.link($0) }
        }
        if outcome.link?.templateID != nil {
            outcome.template = try connection.queryOne(templateOfLink, projectID, linkID, projectID) { TemplateRepository.template($0) }
        }
        return outcome
    }

    /// What tier 0 found: the install; whether it has no install instance id yet (found through
    /// another family's IDFV); whether installs of the report's IDFV exist, when that was read
    /// (the reinstall flag needs the same read); and (PostgreSQL) the install's link, read in the
    /// same row.
    struct Tier0 {
        /// A link read with its install (nil when the install has none, or it is gone).
        struct Link { var link: Attribution.Link? }

        var install: StoredInstall?
        var adopted: Bool
        var sameIDFV: Bool?
        /// When the install was last seen, as its row said (nil: not found).
        var lastSeenAt: Timestamp? = nil
        var link: Link? = nil
        /// The cascade's candidates, read in tier 0's statement when it found no row (PostgreSQL).
        var candidates: (reads: [CandidateRead], rows: [PrefetchedCandidate])? = nil
    }

    /// Tier 0 candidates: by instance id, device id, IDFV, or a recent identical fingerprint.
    static func sameInstall<C: StoreSession>(
        _ report: InstallReport, policy: MatchingPolicy,
        _ connection: C
    ) throws -> Tier0 {
        if C.statementsAreRoundTrips { return try sameInstallInOneTrip(report, policy: policy, connection) }
        var known: [KnownInstall] = []
        let identity = report.identity
        let project = report.projectID
        let map: (C.Reader) -> KnownInstall = { KnownInstallSQL.known($0, from: 0) }
        if let instance = identity.installInstanceID {
            known += try connection.query(KnownInstallSQL.byInstance, project, instance, map: map)
        }
        if let device = identity.deviceID {
            known += try connection.query(KnownInstallSQL.byDevice, project, device, map: map)
        }
        // Only when nothing else names the install: re-reports find it by instance or device id.
        var sameIDFV: Bool?
        if known.isEmpty, let idfv = identity.idfv {
            let installs = try connection.query(KnownInstallSQL.byIDFV, project, idfv, map: map)
            if idfv == report.signals.idfv { sameIDFV = !installs.isEmpty }
            known += installs
        }
        if let fingerprint = identity.fingerprint {
            let window = (policy.sameInstallSeconds + MatchingEngine.lastSeenResolutionSeconds) * 1000
            known += try connection.query(
                KnownInstallSQL.byFingerprint, project, fingerprint,
                report.signals.time.milliseconds - window, map: map)
        }
        guard let found = MatchingEngine.sameInstall(identity, among: known, now: report.signals.time, policy: policy) else {
            return Tier0(install: nil, adopted: false, sameIDFV: sameIDFV)
        }
        return Tier0(
            install: try find(id: found.installID, projectID: project, connection), adopted: found.installInstanceID == nil,
            sameIDFV: sameIDFV, lastSeenAt: found.lastSeenAt)
    }

    /// Tier-0 lookups, their text built once (statements are cached by their SQL text).
    enum KnownInstallSQL {
        /// A tier-0 row whose `columns` start at `first`.
        static func known(_ row: some ColumnReader, from first: Int32) -> KnownInstall {
            KnownInstall(
                installID: row.string(first), installInstanceID: row.optionalString(first + 1), deviceID: row.optionalString(first + 2),
                fingerprint: row.optionalString(first + 3), idfv: row.optionalString(first + 6),
                createdAt: Timestamp(milliseconds: row.int(first + 4)), lastSeenAt: Timestamp(milliseconds: row.int(first + 5)))
        }

        static let columns = "id, install_instance_id, device_id, fingerprint, created_at, last_seen_at, idfv"

        /// The four ways to find the same install; the SQL of each (parameters: the project, then its keys).
        enum Lookup: Sendable {
            case instance, device, idfv, fingerprint

            /// The tag of its rows in tier 0's `UNION ALL`, in the order the lookups run one by one.
            var branch: Int {
                switch self {
                case .instance: 1
                case .device: 2
                case .idfv: 3
                case .fingerprint: 4
                }
            }

            var condition: String {
                switch self {
                case .instance: "install_instance_id = ?"
                case .device: "device_id = ? ORDER BY created_at DESC LIMIT 1"
                // Every install of the IDFV (a device's reinstalls are few); tier 0 takes the newest it may.
                case .idfv: "idfv = ?"
                case .fingerprint: "fingerprint = ? AND last_seen_at > ? ORDER BY created_at DESC LIMIT 1"
                }
            }
        }

        /// The lookup's statement; with `tag`, its rows start with that number (a `UNION ALL` branch),
        /// then the whole install (`storedColumns`, from `storedFrom`), then its link's columns
        /// named `l_…` (from `linkFrom`; NULL when it has none), so that a re-report needs no
        /// second read.
        static func select(_ lookup: Lookup, tag: Int? = nil) -> String {
            guard let tag else { return "SELECT \(columns) FROM installs WHERE project_id = ? AND \(lookup.condition)" }
            return """
                SELECT \(tag), found.*, \(linkColumns) FROM (
                    SELECT \(columns), \(storedColumns) FROM installs WHERE project_id = ? AND \(lookup.condition)) AS found
                LEFT JOIN links AS l ON l.id = found.link_id AND l.project_id = found.project_id
                """
        }

        /// Where a tagged row's whole install starts: after the tag and `columns`.
        static let storedFrom: Int32 = 8
        /// Where its link's columns start: after the install's eighteen.
        static let linkFrom: Int32 = storedFrom + 18
        static let linkColumns = LinkRepository.columns.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.map { "l.\($0) AS l_\($0)" }.joined(separator: ", ")

        /// Tier 0's text for `lookups` (each tagged with its `branch`), with the candidate reads
        /// of `candidates` when there are any (`sameInstallStatement`); built once per combination.
        static func tier0Text(_ lookups: [Lookup], candidates: [CandidateFilter]) -> String {
            texts.text(for: TextKey(lookups: lookups, candidates: candidates)) {
                let tier0 = lookups.map { "(\(select($0, tag: $0.branch)))" }.joined(separator: " UNION ALL ")
                guard !candidates.isEmpty else { return tier0 }
                return """
                    WITH tier0 AS MATERIALIZED (\(tier0))
                    SELECT tier0.*, \(nulls(CandidateFilter.prefetchedColumnCount)) FROM tier0
                    UNION ALL
                    SELECT \(nulls(width)), candidates.* FROM (\(CandidateFilter.prefetchText(candidates))) AS candidates
                    WHERE NOT EXISTS (SELECT 1 FROM tier0)
                    """
            }
        }

        private struct TextKey: Hashable, Sendable {
            let lookups: [Lookup]
            let candidates: [CandidateFilter]
        }

        private static let texts = StatementTextCache<TextKey>()

        /// How many columns a tagged row has: the tag, `columns`, the install's, its link's.
        static let width = Int(linkFrom) + LinkRepository.columns.split(separator: ",").count

        /// `count` NULLs, the columns a row of one half of a `UNION ALL` leaves to the other's.
        static func nulls(_ count: Int) -> String { Array(repeating: "NULL", count: count).joined(separator: ", ") }

        static let byInstance = select(.instance)
        static let byDevice = select(.device)
        static let byIDFV = select(.idfv)
        static let byFingerprint = select(.fingerprint)
    }

    /// - Parameter sameIDFV: whether installs of the report's IDFV exist, when tier 0 read that.
    static func seenBefore(_ report: InstallReport, sameIDFV: Bool?, _ connection: some StoreSession) throws -> Bool {
        if sameIDFV == true { return true }
        if sameIDFV == nil, let idfv = report.signals.idfv,
            try connection.queryOne("SELECT 1 FROM installs WHERE project_id = ? AND idfv = ? LIMIT 1", report.projectID, idfv, map: { _ in true })
                != nil
        {
            return true
        }
        if let advertisingID = report.signals.advertisingID,
            try connection.queryOne(
                "SELECT 1 FROM installs WHERE project_id = ? AND advertising_id = ? LIMIT 1", report.projectID,
                advertisingID, map: { _ in true }) != nil
        {
            return true
        }
        return false
    }

    static func find(id: String, projectID: String, _ connection: some StoreSession) throws -> StoredInstall? {
        try connection.queryOne(findByID, id, projectID) { stored($0, from: 0) }
    }

    static let findByID = "SELECT \(storedColumns) FROM installs WHERE id = ? AND project_id = ?"

    /// A stored install's columns, as `stored` reads them.
    static let storedColumns = """
        id, project_id, match_type, attributed, confidence, matched_factors, click_id, link_id, clicked_at, reinstall, created_at,
        platform, user_id, is_test, api, ip_class, rejected_reasons, quality_flags
        """

    /// The install whose `storedColumns` start at `first`.
    static func stored(_ row: some ColumnReader, from first: Int32) -> StoredInstall {
        var match = MatchResult(
            matchType: MatchResult.MatchType(rawValue: row.string(first + 2)) ?? .none,
            attributed: row.bool(first + 3), confidence: row.double(first + 4),
            matchedFactors: JSONText.decodeStrings(row.string(first + 5)),
            clickID: row.optionalString(first + 6), linkID: row.optionalString(first + 7),
            clickedAt: row.optionalInt(first + 8).map { Timestamp(milliseconds: $0) })
        match.rejectedReasons = row.optionalString(first + 16).map(JSONText.decodeStrings)?.compactMap(RejectionReason.init(rawValue:)) ?? []
        match.flags = row.optionalString(first + 17).map(JSONText.decodeStrings)?.compactMap(QualityFlag.init(rawValue:)) ?? []
        var install = StoredInstall(
            id: row.string(first), projectID: row.string(first + 1), match: match,
            reinstall: row.bool(first + 9), createdAt: Timestamp(milliseconds: row.int(first + 10)),
            platform: row.optionalString(first + 11), userID: row.optionalString(first + 12), isTest: row.bool(first + 13),
            reporter: row.optionalString(first + 14))
        install.addressClass = row.optionalString(first + 15).map(AddressClass.init(rawValue:))
        return install
    }
}
