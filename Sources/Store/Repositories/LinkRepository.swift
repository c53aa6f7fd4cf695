import Attribution
import Foundation
import JSON
import SQLValues
import StoreContracts

/// Short links on either backend (`SessionSource`): one implementation; the SQL and row mapping
/// are `LinkRepository`'s.
struct Links<Source: SessionSource>: LinkStore {
    let source: Source

    /// Stores a new link. A generated code that collides is drawn again; a custom code that is
    /// taken is a conflict (never silently replaced).
    func create(_ link: Link, codeIsCustom: Bool) throws -> Link {
        var link = link
        for attempt in 0..<5 {
            do {
                try source.writeSession { [link] connection in try connection.run(LinkRepository.insertSQL, values: LinkRepository.insertValues(link))
                }
                return link
            } catch  where LinkRepository.isCodeTaken(error) {
                if codeIsCustom { throw StoreError.conflict(LinkRepository.taken(link)) }
                if attempt == 4 { throw error }
                link.shortCode = ShortCode.generate()
            }
        }
        return link
    }

    /// Replaces every field but the id, project and creation time; nil when there is no such link.
    func update(_ link: Link) throws -> Link? {
        do {
            let changed = try source.writeSession { connection in
                try connection.run(LinkRepository.updateSQL, values: LinkRepository.updateValues(link))
            }
            return changed > 0 ? link : nil
        } catch  where isUniqueViolation(error) {
            throw StoreError.conflict(LinkRepository.taken(link))
        }
    }

    func importBatch(creating: [Link], replacing: [Link]) throws {
        do {
            try source.writeSession { connection in
                for link in replacing { try connection.run(LinkRepository.updateSQL, values: LinkRepository.updateValues(link)) }
                for link in creating { try connection.run(LinkRepository.insertSQL, values: LinkRepository.insertValues(link)) }
            }
        } catch  where LinkRepository.isCodeTaken(error) {
            throw StoreError.conflict("a short code of the batch was taken meanwhile; nothing of it was stored")
        }
    }

    func delete(id: String, projectID: String) throws -> Bool {
        try source.writeSession { connection in
            try CountedWrites.deletingLinks(projectID: projectID, [id], connection) {
                try connection.run("DELETE FROM links WHERE id = ? AND project_id = ?", id, projectID) > 0
            }
        }
    }

    func find(id: String, projectID: String) throws -> Link? {
        try source.read { try $0.queryOne("\(LinkRepository.select) WHERE id = ? AND project_id = ?", id, projectID, map: LinkRepository.link) }
    }

    /// The link of `shortCode` on `domain` (nil: the links with no domain) and how many clicks it
    /// has had (for `max_clicks`).
    func find(shortCode: String, domain: String?) throws -> (link: Link, clicks: Int)? {
        try source.read { connection in
            try connection.queryOne("\(LinkRepository.select) WHERE domain = ? AND short_code = ?", domain ?? "", shortCode) { row in
                (LinkRepository.link(row), Int(row.int("click_count")))
            }
        }
    }

    func list(projectID: String, limit: Int, offset: Int) throws -> [Link] {
        try source.read { connection in
            try connection.query(
                "\(LinkRepository.select) WHERE project_id = ? ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
                projectID, limit, offset, map: LinkRepository.link)
        }
    }

    /// The project's links whose short code or title contains `text` in any case of its ASCII
    /// letters (`lower` on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not),
    /// newest first.
    func search(projectID: String, text: String, limit: Int, offset: Int) throws -> [Link] {
        let pattern = LinkRepository.containsPattern(text)
        return try source.read { connection in
            try connection.query(
                """
                \(LinkRepository.select) WHERE project_id = ?
                    AND (lower(short_code) LIKE lower(?) ESCAPE '\\' OR lower(title) LIKE lower(?) ESCAPE '\\')
                ORDER BY created_at DESC, id LIMIT ? OFFSET ?
                """, projectID, pattern, pattern, limit, offset, map: LinkRepository.link)
        }
    }

    /// Every link of every project, `batchSize` rows per read, in id order (for audits of stored values).
    func forEach(batchSize: Int, _ body: (Link) throws -> Void) throws {
        var after = ""
        while true {
            let batch = try source.read { connection in
                try connection.query("\(LinkRepository.select) WHERE id > ? ORDER BY id LIMIT ?", after, batchSize, map: LinkRepository.link)
            }
            for link in batch { try body(link) }
            guard batch.count == batchSize, let last = batch.last else { return }
            after = last.id
        }
    }

    func deleteLongLinks(projectID: String, domain: String) throws -> Int {
        try source.writeSession { connection in
            let condition =
                "domain = ? AND short_code >= 'fdl' AND short_code < 'fdm' AND project_id = ? AND fdl IS NOT NULL AND length(short_code) = 23"
            let ids = try connection.query("SELECT id FROM links WHERE " + condition, domain, projectID) { $0.string(0) }
            return try CountedWrites.deletingLinks(projectID: projectID, ids, connection) {
                try connection.run("DELETE FROM links WHERE " + condition, domain, projectID)
            }
        }
    }

    func count(projectID: String, domain: String, codePrefix prefix: String) throws -> Int {
        try source.read { connection in
            // The (domain, short_code) index answers the range; the project keeps to its own.
            try connection.queryOne(
                "SELECT count(*) FROM links WHERE domain = ? AND short_code >= ? AND short_code < ? AND project_id = ?", domain, prefix,
                prefix + "\u{10FFFF}", projectID
            ) { Int($0.int(0)) } ?? 0
        }
    }

    /// An SDK-created link with the same external user and the same options (deduplication).
    func findDuplicate(projectID: String, externalUserID: String, optionsHash: String) throws -> Link? {
        try source.read { connection in
            try connection.queryOne(
                """
                \(LinkRepository.select) WHERE project_id = ? AND external_user_id = ? AND options_hash = ? AND active
                ORDER BY created_at LIMIT 1
                """, projectID, externalUserID, optionsHash, map: LinkRepository.link)
        }
    }
}

extension Links where Source == Database {
    init(database: Database) { self.init(source: database) }
}

/// The links' SQL and row mapping, for both backends.
enum LinkRepository {
    static let columns = """
        id, project_id, template_id, short_code, title, description, original_url, ios_url, android_url, web_url,
        app_scheme, deep_link_path, deep_link_parameters, utm_source, utm_medium, utm_campaign, utm_term, utm_content,
        targeting, og_title, og_description, og_image, attribution_window_hours, append_click_id, expires_at, max_clicks,
        active, external_user_id, options_hash, created_at, updated_at, domain, fdl, in_app_escape, rules, variants, expired_url,
        password_hash, click_count
        """

    static func link(_ row: some ColumnReader) -> Link {
        Link(
            id: row.string("id"), projectID: row.string("project_id"), templateID: row.optionalString("template_id"),
            shortCode: row.string("short_code"), title: row.optionalString("title"), description: row.optionalString("description"),
            originalURL: row.optionalString("original_url"), iosURL: row.optionalString("ios_url"),
            androidURL: row.optionalString("android_url"), webURL: row.optionalString("web_url"),
            appScheme: row.optionalString("app_scheme"), deepLinkPath: row.optionalString("deep_link_path"),
            deepLinkParameters: JSONText.decodeMap(row.string("deep_link_parameters")),
            utm: UTM(
                source: row.optionalString("utm_source"), medium: row.optionalString("utm_medium"),
                campaign: row.optionalString("utm_campaign"), term: row.optionalString("utm_term"),
                content: row.optionalString("utm_content")),
            targeting: row.optionalString("targeting"),
            og: Link.OpenGraph(
                title: row.optionalString("og_title"), description: row.optionalString("og_description"),
                image: row.optionalString("og_image")),
            attributionWindowHours: row.optionalInt("attribution_window_hours").map(Int.init), appendClickID: row.bool("append_click_id"),
            expiresAt: row.optionalInt("expires_at").map { Timestamp(milliseconds: $0) },
            maxClicks: row.optionalInt("max_clicks").map(Int.init), active: row.bool("active"),
            externalUserID: row.optionalString("external_user_id"), optionsHash: row.optionalString("options_hash"),
            createdAt: Timestamp(milliseconds: row.int("created_at")), updatedAt: Timestamp(milliseconds: row.int("updated_at")),
            domain: row.string("domain").isEmpty ? nil : row.string("domain"),
            fdl: row.optionalString("fdl").flatMap { try? FDLOptions.parse(JSONText.decodeMap($0)).get() },
            inAppEscape: row.optionalInt("in_app_escape").map { $0 != 0 },
            rules: row.optionalString("rules").flatMap(rules) ?? [],
            variants: row.optionalString("variants").flatMap(variants) ?? [],
            expiredURL: row.optionalString("expired_url"), passwordHash: row.optionalString("password_hash"))
    }

    /// Rules and variants were checked when stored; what cannot be read again is none.
    private static func rules(_ text: String) -> [LinkRule]? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return nil }
        return try? LinkRoutingJSON.rules(value)
    }

    private static func variants(_ text: String) -> [LinkVariant]? {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return nil }
        return try? LinkRoutingJSON.variants(value)
    }

    private static func text(_ rules: [LinkRule]) -> String? {
        rules.isEmpty ? nil : String(decoding: LinkRoutingJSON.json(rules).serialized(), as: UTF8.self)
    }
    private static func text(_ variants: [LinkVariant]) -> String? {
        variants.isEmpty ? nil : String(decoding: LinkRoutingJSON.json(variants).serialized(), as: UTF8.self)
    }

    static let select = "SELECT \(columns) FROM links"

    /// Whether a write was refused for a code its domain already has (SQLite names the columns,
    /// PostgreSQL the index).
    static func isCodeTaken(_ error: any Error) -> Bool {
        isUniqueViolation(error, of: "short_code") || isUniqueViolation(error, of: "links_by_domain_code")
    }

    static func taken(_ link: Link) -> String {
        "short code '\(link.shortCode)' is already taken" + (link.domain.map { " on \($0)" } ?? "")
    }

    static let insertSQL = """
        INSERT INTO links (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
            ?, ?, ?, ?, 0)
        """
    static let updateSQL = """
        UPDATE links SET template_id = ?, short_code = ?, title = ?, description = ?, original_url = ?, ios_url = ?,
            android_url = ?, web_url = ?, app_scheme = ?, deep_link_path = ?, deep_link_parameters = ?, utm_source = ?,
            utm_medium = ?, utm_campaign = ?, utm_term = ?, utm_content = ?, targeting = ?, og_title = ?,
            og_description = ?, og_image = ?, attribution_window_hours = ?, append_click_id = ?, expires_at = ?,
            max_clicks = ?, active = ?, updated_at = ?, domain = ?, fdl = ?, in_app_escape = ?, rules = ?, variants = ?,
            expired_url = ?, password_hash = ?
        WHERE id = ? AND project_id = ?
        """

    static func insertValues(_ link: Link) -> [SQLValue] {
        let values: [any SQLBindable] = [
            link.id, link.projectID, link.templateID, link.shortCode, link.title, link.description,
            link.originalURL, link.iosURL, link.androidURL, link.webURL, link.appScheme, link.deepLinkPath,
            JSONText.encode(link.deepLinkParameters), link.utm.source, link.utm.medium, link.utm.campaign, link.utm.term,
            link.utm.content, link.targeting, link.og.title, link.og.description, link.og.image, link.attributionWindowHours,
            link.appendClickID, link.expiresAt?.milliseconds, link.maxClicks, link.active, link.externalUserID, link.optionsHash,
            link.createdAt.milliseconds, link.updatedAt.milliseconds, link.domain ?? "", link.fdl.map { JSONText.encode($0.parameters) },
            link.inAppEscape, text(link.rules), text(link.variants), link.expiredURL, link.passwordHash,
        ]
        return values.map(\.sqlValue)
    }

    static func updateValues(_ link: Link) -> [SQLValue] {
        let values: [any SQLBindable] = [
            link.templateID, link.shortCode, link.title, link.description, link.originalURL, link.iosURL,
            link.androidURL, link.webURL, link.appScheme, link.deepLinkPath, JSONText.encode(link.deepLinkParameters),
            link.utm.source, link.utm.medium, link.utm.campaign, link.utm.term, link.utm.content, link.targeting,
            link.og.title, link.og.description, link.og.image, link.attributionWindowHours, link.appendClickID,
            link.expiresAt?.milliseconds, link.maxClicks, link.active, link.updatedAt.milliseconds, link.domain ?? "",
            link.fdl.map { JSONText.encode($0.parameters) }, link.inAppEscape, text(link.rules), text(link.variants), link.expiredURL,
            link.passwordHash, link.id, link.projectID,
        ]
        return values.map(\.sqlValue)
    }

    /// A LIKE pattern (escape `\`) for text containing `text`.
    static func containsPattern(_ text: String) -> String {
        "%"
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }
}
