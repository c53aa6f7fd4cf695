import Attribution
import Cryptography
import Foundation
import JSON
import SQLValues
import StoreContracts

/// Projects, their API keys and tokens, on either backend (`SessionSource`): one implementation;
/// the SQL and row mapping are `ProjectRepository`'s. Secrets are hashed before they reach SQL.
struct Projects<Source: SessionSource>: ProjectStore {
    let source: Source
    let clock: any Clock

    /// Creates a project with a new token and API key, or with the given ones (declared in config).
    func create(name: String, settings: ProjectSettings, testMode: Bool, token: String?, apiKey: String?) throws -> CreatedProject {
        let token = token ?? Secrets.generate(prefix: "tok_")
        let key = apiKey ?? Secrets.generate(prefix: "ak_")
        let id = UUID().uuidString.lowercased()
        let keyID = UUID().uuidString.lowercased()
        let now = clock.now().milliseconds
        do {
            try source.writeSession { connection in
                try connection.run(
                    ProjectRepository.insertSQL,
                    values: ProjectRepository.insertValues(id: id, name: name, token: token, settings: settings, testMode: testMode, now: now))
                try ProjectRepository.insertKey(connection, id: keyID, projectID: id, key: key, now: now)
            }
        } catch  where isUniqueViolation(error) {
            // SQLite names the column (projects.name), PostgreSQL the constraint (projects_name_key).
            throw StoreError.conflict(
                isUniqueViolation(error, of: "projects.name") || isUniqueViolation(error, of: "projects_name")
                    ? "a project named '\(name)' already exists" : "that token or API key is already in use")
        }
        let project = Project(
            id: id, name: name, settings: settings, testMode: testMode,
            createdAt: Timestamp(milliseconds: now), updatedAt: Timestamp(milliseconds: now))
        return CreatedProject(
            project: project, token: token, apiKey: IssuedAPIKey(id: keyID, key: key, prefix: ProjectRepository.prefix(of: key)))
    }

    func list() throws -> [Project] {
        try source.read { try $0.query("\(ProjectRepository.select) ORDER BY created_at, id", map: ProjectRepository.project) }
    }

    func find(id: String) throws -> Project? {
        try source.read { try $0.queryOne("\(ProjectRepository.select) WHERE id = ?", id, map: ProjectRepository.project) }
    }

    func find(name: String) throws -> Project? {
        try source.read { try $0.queryOne("\(ProjectRepository.select) WHERE name = ?", name, map: ProjectRepository.project) }
    }

    /// The project whose token this is (Linkrunner clients send it in the body).
    func project(forToken token: String) throws -> Project? {
        let hash = Secrets.sha256(token)
        return try source.read { connection in
            try connection.queryOne("SELECT \(ProjectRepository.columns), token_hash FROM projects WHERE token_hash = ?", hash) { row in
                // The index found the row by hash; comparing again in constant time costs nothing.
                Secrets.constantTimeEquals(row.blob("token_hash"), hash) ? ProjectRepository.project(row) : nil
            } ?? nil
        }
    }

    /// The project of an unrevoked API key (LinkForty clients send `Authorization: Bearer`).
    func project(forAPIKey key: String) throws -> Project? {
        let hash = Secrets.sha256(key)
        let projectID = try source.read { connection in
            try connection.queryOne("SELECT project_id, key_hash FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL", hash) { row in
                Secrets.constantTimeEquals(row.blob(1), hash) ? row.string(0) : nil
            } ?? nil
        }
        return try projectID.flatMap { try find(id: $0) }
    }

    /// Replaces the name and settings; nil when there is no such project.
    func update(_ project: Project) throws -> Project? {
        let now = clock.now().milliseconds
        do {
            let changed = try source.writeSession { connection in
                try connection.run(ProjectRepository.updateSQL, values: ProjectRepository.updateValues(project, now: now))
            }
            guard changed > 0 else { return nil }
        } catch  where isUniqueViolation(error) {
            throw StoreError.conflict("a project named '\(project.name)' already exists")
        }
        return try find(id: project.id)
    }

    /// The clocks of test-mode projects, as last saved.
    func testClocks() throws -> [(projectID: String, now: Timestamp)] {
        try source.read { connection in
            try connection.query("SELECT id, clock_ms, created_at FROM projects WHERE test_mode") { row in
                (row.string(0), Timestamp(milliseconds: row.optionalInt(1) ?? row.int(2)))
            }
        }
    }

    /// Saves a test-mode project's clock; it never goes back, even if two saves (from two nodes) cross.
    func saveClock(projectID: String, now: Timestamp) throws {
        try source.writeSession { connection in
            try connection.run(
                "UPDATE projects SET clock_ms = CASE WHEN coalesce(clock_ms, 0) > ? THEN clock_ms ELSE ? END WHERE id = ? AND test_mode",
                now.milliseconds, now.milliseconds, projectID)
        }
    }

    /// Makes the stored token the given one (a project declared in config keeps its token in the file).
    func setToken(projectID: String, token: String) throws {
        try source.writeSession { connection in
            try connection.run("UPDATE projects SET token_hash = ? WHERE id = ?", Secrets.sha256(token), projectID)
        }
    }

    func rotateToken(projectID: String, token: String, previousValidUntil: Timestamp?) throws -> Bool {
        try source.writeSession { connection in
            try connection.run(ProjectRepository.rotateTokenSQL, previousValidUntil?.milliseconds ?? 0, Secrets.sha256(token), projectID) > 0
        }
    }

    func project(forPreviousToken token: String, at time: Timestamp) throws -> Project? {
        let hash = Secrets.sha256(token)
        return try source.read { connection in
            try connection.queryOne(ProjectRepository.previousTokenLookup, hash, time.milliseconds) { row in
                Secrets.constantTimeEquals(row.blob("previous_token_hash"), hash) ? ProjectRepository.project(row) : nil
            } ?? nil
        }
    }

    func delete(projectID: String) throws -> Bool {
        try source.writeSession { try ProjectDeletion.run(projectID: projectID, $0) }
    }

    func issueAPIKey(projectID: String, key: String?) throws -> IssuedAPIKey? {
        guard try find(id: projectID) != nil else { return nil }
        let key = key ?? Secrets.generate(prefix: "ak_")
        let id = UUID().uuidString.lowercased()
        let now = clock.now().milliseconds
        try source.writeSession { try ProjectRepository.insertKey($0, id: id, projectID: projectID, key: key, now: now) }
        return IssuedAPIKey(id: id, key: key, prefix: ProjectRepository.prefix(of: key))
    }

    /// Whether this key (in clear) is already one of the project's keys.
    func hasAPIKey(projectID: String, key: String) throws -> Bool {
        try source.read { connection in
            try connection.queryOne(
                "SELECT 1 FROM api_keys WHERE project_id = ? AND key_hash = ? AND revoked_at IS NULL",
                projectID, Secrets.sha256(key)
            ) { _ in true } ?? false
        }
    }

    /// Revokes a key; false when the project has no such unrevoked key.
    func revokeAPIKey(projectID: String, keyID: String) throws -> Bool {
        let now = clock.now().milliseconds
        return try source.writeSession { connection in
            try connection.run(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND project_id = ? AND revoked_at IS NULL",
                now, keyID, projectID) > 0
        }
    }

    func apiKeys(projectID: String) throws -> [APIKeyInfo] {
        try source.read { connection in
            try connection.query(
                "SELECT id, prefix, created_at, revoked_at FROM api_keys WHERE project_id = ? ORDER BY created_at, id",
                projectID
            ) { row in
                APIKeyInfo(
                    id: row.string(0), prefix: row.string(1), createdAt: Timestamp(milliseconds: row.int(2)),
                    revokedAt: row.optionalInt(3).map { Timestamp(milliseconds: $0) })
            }
        }
    }
}

extension Projects where Source == Database {
    init(database: Database, clock: any Clock = SystemClock()) { self.init(source: database, clock: clock) }
}

/// The projects' SQL and row mapping, for both backends.
enum ProjectRepository {
    static let columns = """
        id, name, ios_team_id, ios_bundle_id, android_package, android_sha256, ios_store_url,
        android_store_url, web_url, attribution_window_hours, min_confidence, currency, signing,
        skan_schema, test_mode, created_at, updated_at, matching_policy, sdk_auth, click_id_parameters, apple_ads, time_zone, in_app_escape,
        ios_app_store_id, skan_forwarding, utm_templates, long_link_hosts, long_links_per_domain, play_referrer, default_consent,
        reporting_currency, traffic_quality
        """

    /// A project's insert and update, SQL and values.
    static let insertSQL = """
        INSERT INTO projects (id, name, token_hash, ios_team_id, ios_bundle_id, android_package, android_sha256,
            ios_store_url, android_store_url, web_url, attribution_window_hours, min_confidence, currency,
            signing, skan_schema, test_mode, clock_ms, created_at, updated_at, matching_policy, sdk_auth,
            click_id_parameters, apple_ads, time_zone, in_app_escape, ios_app_store_id, skan_forwarding, utm_templates,
            long_link_hosts, long_links_per_domain, play_referrer, default_consent, reporting_currency, traffic_quality)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static func insertValues(id: String, name: String, token: String, settings: ProjectSettings, testMode: Bool, now: Int64) -> [SQLValue] {
        let values: [any SQLBindable] = [
            id, name, Secrets.sha256(token), settings.iosTeamID, settings.iosBundleID, settings.androidPackage,
            JSONText.encode(settings.androidSHA256), settings.iosStoreURL, settings.androidStoreURL, settings.webURL,
            settings.attributionWindowHours, settings.minConfidence, settings.currency, settings.signing.rawValue,
            settings.skanSchema, testMode, testMode ? now : nil, now, now, settings.matching.map(MatchingText.encode),
            settings.sdkAuth.rawValue, settings.clickIDParameters.isEmpty ? nil : JSONText.encode(settings.clickIDParameters),
            settings.appleAds, settings.timeZone, settings.inAppEscape, settings.iosAppStoreID,
            settings.skanForwarding.isEmpty ? nil : JSONText.encode(settings.skanForwarding), utmTemplatesText(settings.utmTemplates),
            settings.longLinkHosts.isEmpty ? nil : JSONText.encode(settings.longLinkHosts), settings.longLinksPerDomain,
            settings.playReferrer.rawValue, CodableText.encode(settings.defaultConsent, unlessEmpty: \.isEmpty), settings.reportingCurrency,
            CodableText.encode(settings.trafficQuality, unlessEmpty: \.isDefault),
        ]
        return values.map(\.sqlValue)
    }

    static func utmTemplatesText(_ templates: [UTMTemplate]) -> String? {
        templates.isEmpty ? nil : String(decoding: UTMTemplate.json(templates).serialized(), as: UTF8.self)
    }

    /// Checked when stored; what cannot be read again is none.
    static func utmTemplates(_ text: String) -> [UTMTemplate]? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return nil }
        return try? UTMTemplate.parse(value)
    }

    static let updateSQL = """
        UPDATE projects SET name = ?, ios_team_id = ?, ios_bundle_id = ?, android_package = ?, android_sha256 = ?,
            ios_store_url = ?, android_store_url = ?, web_url = ?, attribution_window_hours = ?, min_confidence = ?,
            currency = ?, signing = ?, skan_schema = ?, matching_policy = ?, sdk_auth = ?, click_id_parameters = ?,
            apple_ads = ?, time_zone = ?, in_app_escape = ?, ios_app_store_id = ?, skan_forwarding = ?, utm_templates = ?,
            long_link_hosts = ?, long_links_per_domain = ?, play_referrer = ?, default_consent = ?, reporting_currency = ?,
            traffic_quality = ?, updated_at = ?
        WHERE id = ?
        """

    static func updateValues(_ project: Project, now: Int64) -> [SQLValue] {
        let settings = project.settings
        let values: [any SQLBindable] = [
            project.name, settings.iosTeamID, settings.iosBundleID, settings.androidPackage,
            JSONText.encode(settings.androidSHA256), settings.iosStoreURL, settings.androidStoreURL, settings.webURL,
            settings.attributionWindowHours, settings.minConfidence, settings.currency, settings.signing.rawValue,
            settings.skanSchema, settings.matching.map(MatchingText.encode), settings.sdkAuth.rawValue,
            settings.clickIDParameters.isEmpty ? nil : JSONText.encode(settings.clickIDParameters), settings.appleAds, settings.timeZone,
            settings.inAppEscape, settings.iosAppStoreID, settings.skanForwarding.isEmpty ? nil : JSONText.encode(settings.skanForwarding),
            utmTemplatesText(settings.utmTemplates), settings.longLinkHosts.isEmpty ? nil : JSONText.encode(settings.longLinkHosts),
            settings.longLinksPerDomain, settings.playReferrer.rawValue,
            CodableText.encode(settings.defaultConsent, unlessEmpty: \.isEmpty), settings.reportingCurrency,
            CodableText.encode(settings.trafficQuality, unlessEmpty: \.isDefault), now, project.id,
        ]
        return values.map(\.sqlValue)
    }

    static func project(_ row: some ColumnReader) -> Project {
        var settings = ProjectSettings()
        settings.iosTeamID = row.optionalString("ios_team_id")
        settings.iosBundleID = row.optionalString("ios_bundle_id")
        settings.androidPackage = row.optionalString("android_package")
        settings.androidSHA256 = JSONText.decodeStrings(row.string("android_sha256"))
        settings.iosStoreURL = row.optionalString("ios_store_url")
        settings.androidStoreURL = row.optionalString("android_store_url")
        settings.webURL = row.optionalString("web_url")
        settings.attributionWindowHours = Int(row.int("attribution_window_hours"))
        settings.minConfidence = row.double("min_confidence")
        settings.currency = row.string("currency")
        settings.reportingCurrency = row.string("reporting_currency")
        settings.signing = SigningMode(rawValue: row.string("signing")) ?? .off
        settings.skanSchema = row.optionalString("skan_schema")
        settings.matching = row.optionalString("matching_policy").flatMap(MatchingText.decode)
        settings.sdkAuth = SDKAuthentication(rawValue: row.string("sdk_auth")) ?? .required
        settings.clickIDParameters = row.optionalString("click_id_parameters").map(JSONText.decodeStrings) ?? []
        settings.appleAds = row.bool("apple_ads")
        settings.inAppEscape = row.bool("in_app_escape")
        settings.iosAppStoreID = row.optionalInt("ios_app_store_id")
        settings.skanForwarding = row.optionalString("skan_forwarding").map(JSONText.decodeStrings) ?? []
        settings.timeZone = row.string("time_zone")
        settings.utmTemplates = row.optionalString("utm_templates").flatMap(utmTemplates) ?? []
        settings.longLinkHosts = row.optionalString("long_link_hosts").map(JSONText.decodeStrings) ?? []
        settings.longLinksPerDomain = Int(row.int("long_links_per_domain"))
        settings.playReferrer = PlayReferrerFormat(rawValue: row.string("play_referrer")) ?? .utm
        settings.defaultConsent = row.optionalString("default_consent").flatMap { CodableText.decode(Consent.self, $0) } ?? Consent()
        settings.trafficQuality =
            row.optionalString("traffic_quality").flatMap { CodableText.decode(TrafficQualityRules.self, $0) } ?? TrafficQualityRules()
        return Project(
            id: row.string("id"), name: row.string("name"), settings: settings, testMode: row.bool("test_mode"),
            createdAt: Timestamp(milliseconds: row.int("created_at")), updatedAt: Timestamp(milliseconds: row.int("updated_at")))
    }

    static let select = "SELECT \(columns) FROM projects"

    /// The current token becomes the previous one, accepted until the time given.
    static let rotateTokenSQL = "UPDATE projects SET previous_token_hash = token_hash, previous_token_expires_at = ?, token_hash = ? WHERE id = ?"
    static let previousTokenLookup = """
        SELECT \(columns), previous_token_hash FROM projects WHERE previous_token_hash = ? AND previous_token_expires_at > ?
        """

    static func insertKey(_ connection: some StoreSession, id: String, projectID: String, key: String, now: Int64) throws {
        try connection.run(
            "INSERT INTO api_keys (id, project_id, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)",
            id, projectID, Secrets.sha256(key), prefix(of: key), now)
    }

    static func prefix(of key: String) -> String { String(key.prefix(7)) }
}

/// What a project's deletion removes beyond the rows its foreign keys cascade to: the tables keyed
/// by project without a foreign key (rollups, PostgreSQL's pending deltas, the outbox's new jobs, where clicks were pruned). Run
/// after the project's row goes, so that rows its cascade adds to them go too.
enum ProjectDeletion {
    static func tables(_ dialect: SQLDialect) -> [String] {
        let common = [
            "user_event_installs", "outbox_new", "rollup_project_hours", "rollup_link_days", "rollup_money",
            "rollup_link_hours", "rollup_link_hour_money", "rollup_tallies", "clicks_pruned",
        ]
        switch dialect {
        case .sqlite: return common
        case .postgres: return common + ["rollup_count_deltas", "rollup_money_deltas", "rollup_tally_deltas"]
        }
    }

    static func run(projectID: String, _ connection: some StoreSession) throws -> Bool {
        let deleted = try connection.run("DELETE FROM projects WHERE id = ?", projectID) > 0
        for table in tables(type(of: connection).dialect) { try connection.run("DELETE FROM \(table) WHERE project_id = ?", projectID) }
        return deleted
    }

}
