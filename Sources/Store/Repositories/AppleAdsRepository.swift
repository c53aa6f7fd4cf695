import Attribution
import Foundation
import StoreContracts

/// Apple Ads claims on either backend (`SessionSource`).
struct AppleAdsClaims<Source: SessionSource>: AppleAdsStore {
    let source: Source

    public func capture(
        installID: String, projectID: String, token: String, at time: Timestamp, exchange: OutboxMessage,
        delivery: WriteDelivery?, completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) {
        source.write(
            delivery: delivery,
            { connection in
                let status = try connection.queryOne("SELECT status FROM apple_ads_claims WHERE install_id = ?", installID) { $0.string(0) }
                switch status {
                case nil:
                    try connection.run(
                        """
                        INSERT INTO apple_ads_claims (install_id, project_id, token, token_received_at) VALUES (?, ?, ?, ?)
                        """, installID, projectID, token, time.milliseconds)
                case AppleAdsClaim.Status.pending.rawValue?:
                    // The exchange already queued sends the newest token.
                    try connection.run(
                        "UPDATE apple_ads_claims SET token = ?, token_received_at = ? WHERE install_id = ?",
                        token, time.milliseconds, installID)
                    return false
                case AppleAdsClaim.Status.failed.rawValue?:
                    // No answer was recorded: a fresh token may try again.
                    try connection.run(
                        """
                        UPDATE apple_ads_claims SET token = ?, token_received_at = ?, status = 'pending', not_found_answers = 0
                        WHERE install_id = ?
                        """, token, time.milliseconds, installID)
                default:
                    return false  // Apple answered: one exchange per install
                }
                var exchange = exchange
                exchange.installID = installID
                try OutboxRepository.insert([exchange], connection)
                return true
            }, completion: completion)
    }

    public func pendingToken(installID: String) throws -> AppleAdsToken? {
        try source.read { connection in
            try connection.queryOne(
                """
                SELECT token, token_received_at, not_found_answers FROM apple_ads_claims
                WHERE install_id = ? AND status = 'pending' AND token IS NOT NULL
                """, installID
            ) {
                AppleAdsToken(token: $0.string(0), receivedAt: Timestamp(milliseconds: $0.int(1)), notFoundAnswers: Int($0.int(2)))
            }
        }
    }

    public func recordAnswer(
        installID: String, answer: AppleAdsAnswer, payload: String, at time: Timestamp,
        wins: @escaping @Sendable (MatchResult, Timestamp) -> Bool,
        notify: Notifier<AppleAdsAttribution>?
    ) throws -> StoredInstall? {
        try source.writeSession { connection in
            guard
                let projectID = try connection.queryOne(
                    "SELECT project_id FROM apple_ads_claims WHERE install_id = ? AND status = 'pending'", installID, map: { $0.string(0) })
            else {
                return nil  // answered already (a replayed job), or erased with its install
            }
            try connection.run(
                """
                UPDATE apple_ads_claims SET status = ?, token = NULL, payload = ?, org_id = ?, campaign_id = ?, ad_group_id = ?,
                    keyword_id = ?, ad_id = ?, conversion_type = ?, claim_type = ?, claimed_at = ?, country = ?, supply_placement = ?,
                    is_test = ?, answered_at = ?
                WHERE install_id = ?
                """, answer.attribution ? "attributed" : "not_attributed", payload, answer.orgID, answer.campaignID, answer.adGroupID,
                answer.keywordID, answer.adID, answer.conversionType, answer.claimType?.rawValue, answer.claimedAt?.milliseconds,
                answer.countryOrRegion, answer.supplyPlacement, answer.isTest, time.milliseconds, installID)
            guard let install = try InstallRepository.find(id: installID, projectID: projectID, connection),
                wins(install.match, install.createdAt)
            else { return nil }
            // Counted again: under no link, attributed by Apple Ads, without its click's referrer.
            try CountedWrites.changingInstalls([installID], connection) {
                if let clickID = install.match.clickID {
                    // The click the install had claimed is free for another install again.
                    try connection.run(
                        "UPDATE clicks SET install_id = NULL, claimed_at = NULL WHERE click_id = ? AND install_id = ?",
                        clickID, installID)
                }
                try connection.run(
                    """
                    UPDATE installs SET match_type = 'deterministic', attributed = TRUE, confidence = 1, matched_factors = ?, click_id = NULL,
                        link_id = NULL, clicked_at = ?
                    WHERE id = ?
                    """, JSONText.encode([AppleAdsAttribution.factor]), answer.claimedAt?.milliseconds, installID)
            }
            try connection.run("UPDATE apple_ads_claims SET won = TRUE WHERE install_id = ?", installID)
            guard let updated = try InstallRepository.find(id: installID, projectID: projectID, connection) else { return nil }
            try OutboxRepository.notify(notify, AppleAdsAttribution(install: updated, answer: answer), installID: installID, connection)
            return updated
        }
    }

    public func recordNotFound(installID: String) throws -> Int {
        try source.writeSession { connection in
            try connection.run("UPDATE apple_ads_claims SET not_found_answers = not_found_answers + 1 WHERE install_id = ?", installID)
            return try connection.queryOne("SELECT not_found_answers FROM apple_ads_claims WHERE install_id = ?", installID) {
                Int($0.int(0))
            } ?? 0
        }
    }

    public func recordFailure(installID: String) throws {
        try source.writeSession { connection in
            try connection.run(
                "UPDATE apple_ads_claims SET status = 'failed', token = NULL WHERE install_id = ? AND status = 'pending'",
                installID)
        }
    }

    public func claim(installID: String) throws -> AppleAdsClaim? {
        try source.read { connection in try AppleAdsRepository.claim(installID: installID, connection) }
    }

    public func expireTokens(receivedBefore time: Timestamp) throws -> Int {
        try source.writeSession { connection in
            try connection.run(
                """
                UPDATE apple_ads_claims SET token = NULL, status = CASE status WHEN 'pending' THEN 'failed' ELSE status END
                WHERE token IS NOT NULL AND token_received_at < ?
                """, time.milliseconds)
        }
    }
}

extension AppleAdsClaims where Source == Database {
    init(database: Database) { self.init(source: database) }
}

/// The claims' SQL, for both backends.
enum AppleAdsRepository {
    static func claim(installID: String, _ connection: some StoreSession) throws -> AppleAdsClaim? {
        try connection.queryOne(
            """
            SELECT install_id, project_id, status, org_id, campaign_id, ad_group_id, keyword_id, ad_id, conversion_type,
                claim_type, claimed_at, country, supply_placement, is_test, won
            FROM apple_ads_claims WHERE install_id = ?
            """, installID
        ) { row in
            let status = AppleAdsClaim.Status(rawValue: row.string("status")) ?? .pending
            let answered = status == .attributed || status == .notAttributed
            let answer =
                answered
                ? AppleAdsAnswer(
                    attribution: status == .attributed, orgID: row.optionalString("org_id"), campaignID: row.optionalString("campaign_id"),
                    adGroupID: row.optionalString("ad_group_id"), keywordID: row.optionalString("keyword_id"), adID: row.optionalString("ad_id"),
                    conversionType: row.optionalString("conversion_type"),
                    claimType: row.optionalString("claim_type").flatMap(AppleAdsAnswer.ClaimType.init(rawValue:)),
                    claimedAt: row.optionalInt("claimed_at").map { Timestamp(milliseconds: $0) }, countryOrRegion: row.optionalString("country"),
                    supplyPlacement: row.optionalString("supply_placement")) : nil
            return AppleAdsClaim(
                installID: row.string("install_id"), projectID: row.string("project_id"), status: status, answer: answer,
                isTest: row.bool("is_test"), won: row.bool("won"))
        }
    }
}
