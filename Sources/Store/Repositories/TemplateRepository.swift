public import Attribution
import Foundation

public struct TemplateRepository: TemplateStore {
    let database: Database

    public init(database: Database) { self.database = database }

    static let columns = """
        id, project_id, slug, name, ios_url, android_url, web_url, app_scheme, deep_link_path,
        deep_link_parameters, utm, attribution_window_hours, created_at
        """

    /// Shared with PostgreSQL (`PGTemplateStore`).
    static let insertSQL = """
        INSERT INTO templates (id, project_id, slug, name, ios_url, android_url, web_url, app_scheme, deep_link_path,
            deep_link_parameters, utm, attribution_window_hours, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static func insertValues(_ template: LinkTemplate) -> [PGValue] {
        let values: [any PGBindable] = [template.id, template.projectID, template.slug, template.name, template.iosURL, template.androidURL,
            template.webURL, template.appScheme, template.deepLinkPath, JSONText.encode(template.deepLinkParameters),
            JSONText.encode(template.utm), template.attributionWindowHours, template.createdAt.milliseconds, template.createdAt.milliseconds]
        return values.map(\.pgValue)
    }

    static func template(_ row: some ColumnReader) -> LinkTemplate {
        LinkTemplate(id: row.string("id"), projectID: row.string("project_id"), slug: row.string("slug"), name: row.string("name"),
                     iosURL: row.optionalString("ios_url"), androidURL: row.optionalString("android_url"),
                     webURL: row.optionalString("web_url"), appScheme: row.optionalString("app_scheme"),
                     deepLinkPath: row.optionalString("deep_link_path"),
                     deepLinkParameters: JSONText.decodeMap(row.string("deep_link_parameters")), utm: JSONText.decodeMap(row.string("utm")),
                     attributionWindowHours: row.optionalInt("attribution_window_hours").map(Int.init),
                     createdAt: Timestamp(milliseconds: row.int("created_at")))
    }

    /// Stores a new template; a slug the project already uses is a conflict.
    public func create(_ template: LinkTemplate) throws -> LinkTemplate {
        do {
            try database.writeAndWait { connection in
                try connection.run(Self.insertSQL, values: Self.insertValues(template))
            }
        } catch let error as SQLiteError where error.isUniqueViolation {
            throw StoreError.conflict("the project already has a template with slug '\(template.slug)'")
        }
        return template
    }

    public func find(id: String, projectID: String) throws -> LinkTemplate? {
        try database.read { try $0.queryOne("SELECT \(Self.columns) FROM templates WHERE id = ? AND project_id = ?", id, projectID, map: Self.template) }
    }

    public func find(slug: String, projectID: String) throws -> LinkTemplate? {
        try database.read { try $0.queryOne("SELECT \(Self.columns) FROM templates WHERE slug = ? AND project_id = ?", slug, projectID, map: Self.template) }
    }

    /// The project's most recent template: links made by SDKs without a template use it.
    public func mostRecent(projectID: String) throws -> LinkTemplate? {
        try database.read { connection in
            try connection.queryOne("SELECT \(Self.columns) FROM templates WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT 1",
                                    projectID, map: Self.template)
        }
    }

    public func list(projectID: String) throws -> [LinkTemplate] {
        try database.read { connection in
            try connection.query("SELECT \(Self.columns) FROM templates WHERE project_id = ? ORDER BY created_at, id",
                                 projectID, map: Self.template)
        }
    }
}
