import Attribution
import Foundation
import JSON
import SQLValues
import StoreContracts

/// Ad-platform connections', consent's and claims' SQL and row mapping.
enum AdPlatformRepository {
    static let columns = "project_id, platform, settings, secrets, event_mapping, enabled, created_at, updated_at"

    static let upsert = """
        INSERT INTO ad_platform_connections (project_id, platform, settings, secrets, event_mapping, enabled, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (project_id, platform) DO UPDATE SET settings = excluded.settings, secrets = excluded.secrets,
            event_mapping = excluded.event_mapping, enabled = excluded.enabled, updated_at = excluded.updated_at
        """
    static let ofProject = "SELECT \(columns) FROM ad_platform_connections WHERE project_id = ? ORDER BY platform"
    static let all = "SELECT \(columns) FROM ad_platform_connections ORDER BY project_id, platform"
    static let one = "SELECT \(columns) FROM ad_platform_connections WHERE project_id = ? AND platform = ?"
    static let deleteOne = "DELETE FROM ad_platform_connections WHERE project_id = ? AND platform = ?"

    static func values(_ connection: AdPlatformConnection) -> [SQLValue] {
        let values: [any SQLBindable] = [
            connection.projectID, connection.platform.rawValue, JSONText.encode(connection.settings), JSONText.encode(connection.secrets),
            mappingText(connection.eventMapping), connection.enabled, connection.createdAt.milliseconds,
            connection.updatedAt.milliseconds,
        ]
        return values.map(\.sqlValue)
    }

    static func connection(_ row: some ColumnReader) -> AdPlatformConnection? {
        guard let platform = AdPlatform(rawValue: row.string("platform")) else { return nil }
        return AdPlatformConnection(
            projectID: row.string("project_id"), platform: platform,
            settings: CodableText.decode([String: String].self, row.string("settings")) ?? [:],
            secrets: CodableText.decode([String: String].self, row.string("secrets")) ?? [:],
            eventMapping: mapping(row.string("event_mapping")), enabled: row.bool("enabled"),
            createdAt: Timestamp(milliseconds: row.int("created_at")), updatedAt: Timestamp(milliseconds: row.int("updated_at")))
    }

    /// `{"ours": "theirs", "never_sent": null}`.
    static func mappingText(_ mapping: AdEventMapping) -> String {
        var object: [String: JSONValue] = [:]
        for (ours, theirs) in mapping.overrides { object[ours] = theirs.map(JSONValue.string) ?? .null }
        return String(decoding: JSONValue.object(object).serialized(), as: UTF8.self)
    }

    static func mapping(_ text: String) -> AdEventMapping {
        guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return AdEventMapping() }
        var overrides: [String: String?] = [:]
        for (ours, theirs) in object {
            if case .string(let name) = theirs { overrides[ours] = .some(name) } else { overrides[ours] = .some(nil) }
        }
        return AdEventMapping(overrides: overrides)
    }

    // MARK: Consent and signals

    static let consentOfInstall = "SELECT consent, ad_signals FROM installs WHERE id = ? AND project_id = ?"

    /// A re-report's consent and signals over the stored ones; written only when they change.
    static func mergeReported(consent: Consent?, signals: AdSignals?, installID: String, _ connection: some StoreSession) throws {
        guard
            let (storedConsent, storedSignals) = try connection.queryOne(
                "SELECT consent, ad_signals FROM installs WHERE id = ?", installID,
                map: { row in (row.optionalString(0), row.optionalString(1)) })
        else { return }
        let oldConsent = storedConsent.flatMap { CodableText.decode(Consent.self, $0) } ?? Consent()
        let oldSignals = storedSignals.flatMap { CodableText.decode(AdSignals.self, $0) } ?? AdSignals()
        let newConsent = consent.map(oldConsent.updated(with:)) ?? oldConsent
        let newSignals = signals.map(oldSignals.updated(with:)) ?? oldSignals
        guard newConsent != oldConsent || newSignals != oldSignals else { return }
        try connection.run(
            "UPDATE installs SET consent = ?, ad_signals = ? WHERE id = ?", CodableText.encode(newConsent, unlessEmpty: \.isEmpty),
            CodableText.encode(newSignals, unlessEmpty: \.isEmpty), installID)
    }

    // MARK: Deliveries

    static let deliveryFacts = """
        SELECT i.id, i.platform, i.app_version, i.ip, i.user_agent, i.idfv, i.advertising_id, i.country, c.click_id, c.link_id,
            c.utm_source, c.utm_medium, c.utm_campaign, c.utm_term, c.utm_content, c.network_click_id, c.network_click_parameter,
            c.country AS click_country, i.os_version, i.device_model, i.languages, i.timezone, i.screen_width, i.screen_height,
            i.consent, i.ad_signals, i.created_at, i.is_test, i.match_type, i.attributed, i.confidence, i.matched_factors,
            i.click_id AS match_click_id, i.link_id AS match_link_id, i.clicked_at
        FROM installs i LEFT JOIN clicks c ON i.attributed AND c.click_id = i.click_id
        WHERE i.id = ?
        """

    static func facts(_ row: some ColumnReader) -> AdDeliveryFacts {
        let click = row.optionalString("click_id").map { clickID in
            AttributedClick(
                clickID: clickID, linkID: row.optionalString("link_id"),
                utm: UTM(
                    source: row.optionalString("utm_source"), medium: row.optionalString("utm_medium"),
                    campaign: row.optionalString("utm_campaign"), term: row.optionalString("utm_term"), content: row.optionalString("utm_content")),
                networkClickID: row.optionalString("network_click_id").map {
                    NetworkClickID(parameter: row.optionalString("network_click_parameter") ?? "", value: $0)
                }, country: row.optionalString("click_country"))
        }
        let install = InstallFacts(
            installID: row.string("id"), platform: row.optionalString("platform"), appVersion: row.optionalString("app_version"),
            ip: row.optionalString("ip"), userAgent: row.optionalString("user_agent"), idfv: row.optionalString("idfv"),
            advertisingID: row.optionalString("advertising_id"), country: row.optionalString("country"), click: click)
        return AdDeliveryFacts(
            install: install, osVersion: row.optionalString("os_version"), deviceModel: row.optionalString("device_model"),
            locale: row.optionalString("languages").flatMap { JSONText.decodeStrings($0).first },
            timezone: row.optionalString("timezone"), screenWidth: row.optionalDouble("screen_width"),
            screenHeight: row.optionalDouble("screen_height"),
            consent: row.optionalString("consent").flatMap { CodableText.decode(Consent.self, $0) } ?? Consent(),
            signals: row.optionalString("ad_signals").flatMap { CodableText.decode(AdSignals.self, $0) } ?? AdSignals(),
            match: MatchResult(
                matchType: MatchResult.MatchType(rawValue: row.string("match_type")) ?? .none, attributed: row.bool("attributed"),
                confidence: row.double("confidence"), matchedFactors: JSONText.decodeStrings(row.string("matched_factors")),
                clickID: row.optionalString("match_click_id"), linkID: row.optionalString("match_link_id"),
                clickedAt: row.optionalInt("clicked_at").map(Timestamp.init(milliseconds:))),
            createdAt: Timestamp(milliseconds: row.int("created_at")), isTest: row.bool("is_test"))
    }

    // MARK: Claims

    static let claimColumns = """
        install_id, source, campaign_id, campaign_name, ad_group_id, ad_group_name, ad_id, interaction, engaged_at, ad_event_id,
        payload, won, received_at
        """

    static let saveClaim = """
        INSERT INTO ad_platform_claims (install_id, source, project_id, campaign_id, campaign_name, ad_group_id, ad_group_name, ad_id,
            interaction, engaged_at, ad_event_id, payload, won, received_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, FALSE, ?)
        ON CONFLICT (install_id, source) DO UPDATE SET campaign_id = excluded.campaign_id, campaign_name = excluded.campaign_name,
            ad_group_id = excluded.ad_group_id, ad_group_name = excluded.ad_group_name, ad_id = excluded.ad_id,
            interaction = excluded.interaction, engaged_at = excluded.engaged_at, ad_event_id = excluded.ad_event_id,
            payload = excluded.payload, received_at = excluded.received_at
        """

    static func claim(_ row: some ColumnReader) -> StoredAdClaim? {
        guard let source = AdPlatformClaim.Source(rawValue: row.string("source")) else { return nil }
        return StoredAdClaim(
            installID: row.string("install_id"),
            claim: AdPlatformClaim(
                source: source, campaignID: row.optionalString("campaign_id"), campaignName: row.optionalString("campaign_name"),
                adGroupID: row.optionalString("ad_group_id"), adGroupName: row.optionalString("ad_group_name"), adID: row.optionalString("ad_id"),
                interaction: row.optionalString("interaction"), engagedAt: row.optionalInt("engaged_at").map(Timestamp.init(milliseconds:)),
                adEventID: row.optionalString("ad_event_id")),
            won: row.bool("won"), payload: row.string("payload"), receivedAt: Timestamp(milliseconds: row.int("received_at")))
    }
}

/// Ad-platform connections, consent and claims, one implementation for both backends.
struct AdPlatforms<Source: SessionSource>: AdPlatformStore {
    let source: Source

    func save(_ connection: AdPlatformConnection) throws {
        try source.writeSession { try $0.run(AdPlatformRepository.upsert, values: AdPlatformRepository.values(connection)) }
    }

    func connection(projectID: String, platform: AdPlatform) throws -> AdPlatformConnection? {
        try source.read {
            try $0.query(AdPlatformRepository.one, values: sqlValues(projectID, platform.rawValue), map: AdPlatformRepository.connection).first
                ?? nil
        }
    }

    func connections(projectID: String) throws -> [AdPlatformConnection] {
        try source.read { try $0.query(AdPlatformRepository.ofProject, values: sqlValues(projectID), map: AdPlatformRepository.connection) }
            .compactMap { $0 }
    }

    func allConnections() throws -> [AdPlatformConnection] {
        try source.read { try $0.query(AdPlatformRepository.all, values: [], map: AdPlatformRepository.connection) }.compactMap { $0 }
    }

    func delete(projectID: String, platform: AdPlatform) throws -> Bool {
        try source.writeSession { try $0.run(AdPlatformRepository.deleteOne, values: sqlValues(projectID, platform.rawValue)) > 0 }
    }

    func setConsent(_ consent: Consent, installID: String, projectID: String) throws -> Bool {
        try source.writeSession { connection in
            try connection.run(
                "UPDATE installs SET consent = ? WHERE id = ? AND project_id = ?", CodableText.encode(consent, unlessEmpty: \.isEmpty),
                installID, projectID) > 0
        }
    }

    func consent(installID: String, projectID: String) throws -> (consent: Consent?, signals: AdSignals)? {
        try source.read { connection in
            try connection.queryOne(AdPlatformRepository.consentOfInstall, installID, projectID) { row in
                (
                    row.optionalString(0).flatMap { CodableText.decode(Consent.self, $0) },
                    row.optionalString(1).flatMap { CodableText.decode(AdSignals.self, $0) } ?? AdSignals()
                )
            }
        }
    }

    func deliveryFacts(installID: String) throws -> AdDeliveryFacts? {
        try source.read { try $0.queryOne(AdPlatformRepository.deliveryFacts, installID, map: AdPlatformRepository.facts) }
    }

    func recordClaim(
        _ claim: AdPlatformClaim, payload: String, installID: String, at time: Timestamp,
        wins: @escaping @Sendable (MatchResult, Timestamp) -> Bool, notify: Notifier<AdClaimAttribution>?
    ) throws -> StoredInstall? {
        try source.writeSession { connection in
            guard
                let projectID = try connection.queryOne("SELECT project_id FROM installs WHERE id = ?", installID, map: { $0.string(0) })
            else { return nil }  // erased since the platform was asked
            try connection.run(
                AdPlatformRepository.saveClaim, installID, claim.source.rawValue, projectID, claim.campaignID, claim.campaignName,
                claim.adGroupID, claim.adGroupName, claim.adID, claim.interaction, claim.engagedAt?.milliseconds, claim.adEventID, payload,
                time.milliseconds)
            guard let install = try InstallRepository.find(id: installID, projectID: projectID, connection), !install.isTest,
                install.match.matchedFactors != [claim.factor], wins(install.match, install.createdAt)
            else { return nil }
            // Counted again: under no link, attributed by the platform.
            try CountedWrites.changingInstalls([installID], connection) {
                if let clickID = install.match.clickID {
                    try connection.run(
                        "UPDATE clicks SET install_id = NULL, claimed_at = NULL WHERE click_id = ? AND install_id = ?", clickID, installID)
                }
                try connection.run(
                    """
                    UPDATE installs SET match_type = 'deterministic', attributed = TRUE, confidence = 1, matched_factors = ?, click_id = NULL,
                        link_id = NULL, clicked_at = ?
                    WHERE id = ?
                    """, JSONText.encode([claim.factor]), claim.engagedAt?.milliseconds, installID)
            }
            try connection.run("UPDATE ad_platform_claims SET won = (source = ?) WHERE install_id = ?", claim.source.rawValue, installID)
            guard let updated = try InstallRepository.find(id: installID, projectID: projectID, connection) else { return nil }
            try OutboxRepository.notify(notify, AdClaimAttribution(install: updated, claim: claim), installID: installID, connection)
            return updated
        }
    }

    func claims(installID: String) throws -> [StoredAdClaim] {
        try source.read { connection in
            try connection.query(
                "SELECT \(AdPlatformRepository.claimColumns) FROM ad_platform_claims WHERE install_id = ? ORDER BY received_at",
                values: sqlValues(installID), map: AdPlatformRepository.claim)
        }.compactMap { $0 }
    }
}
