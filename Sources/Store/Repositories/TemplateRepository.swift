import Attribution
import Foundation
import SQLValues
import StoreContracts

/// Link templates' SQL and row mapping (`Templates` runs them on either backend; the install
/// transaction reads a template with them).
enum TemplateRepository {
    static let columns = """
        id, project_id, slug, name, ios_url, android_url, web_url, app_scheme, deep_link_path,
        deep_link_parameters, utm, attribution_window_hours, created_at
        """

    static let insertSQL = """
        INSERT INTO templates (id, project_id, slug, name, ios_url, android_url, web_url, app_scheme, deep_link_path,
            deep_link_parameters, utm, attribution_window_hours, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    static func insertValues(_ template: LinkTemplate) -> [SQLValue] {
        let values: [any SQLBindable] = [
            template.id, template.projectID, template.slug, template.name, template.iosURL, template.androidURL,
            template.webURL, template.appScheme, template.deepLinkPath, JSONText.encode(template.deepLinkParameters),
            JSONText.encode(template.utm), template.attributionWindowHours, template.createdAt.milliseconds, template.createdAt.milliseconds,
        ]
        return values.map(\.sqlValue)
    }

    static func template(_ row: some ColumnReader) -> LinkTemplate {
        LinkTemplate(
            id: row.string("id"), projectID: row.string("project_id"), slug: row.string("slug"), name: row.string("name"),
            iosURL: row.optionalString("ios_url"), androidURL: row.optionalString("android_url"),
            webURL: row.optionalString("web_url"), appScheme: row.optionalString("app_scheme"),
            deepLinkPath: row.optionalString("deep_link_path"),
            deepLinkParameters: JSONText.decodeMap(row.string("deep_link_parameters")), utm: JSONText.decodeMap(row.string("utm")),
            attributionWindowHours: row.optionalInt("attribution_window_hours").map(Int.init),
            createdAt: Timestamp(milliseconds: row.int("created_at")))
    }
}

/// Link templates, one implementation for both backends.
struct Templates<Source: SessionSource>: TemplateStore {
    let source: Source

    private static var select: String { "SELECT \(TemplateRepository.columns) FROM templates" }

    /// Stores a new template; a slug the project already uses is a conflict.
    func create(_ template: LinkTemplate) throws -> LinkTemplate {
        do {
            try source.writeSession { try $0.run(TemplateRepository.insertSQL, values: TemplateRepository.insertValues(template)) }
        } catch let error where isUniqueViolation(error) {
            throw StoreError.conflict("the project already has a template with slug '\(template.slug)'")
        }
        return template
    }

    func find(id: String, projectID: String) throws -> LinkTemplate? {
        try source.read {
            try $0.query("\(Self.select) WHERE id = ? AND project_id = ?", values: sqlValues(id, projectID), map: TemplateRepository.template).first
        }
    }

    func find(slug: String, projectID: String) throws -> LinkTemplate? {
        try source.read {
            try $0.query("\(Self.select) WHERE slug = ? AND project_id = ?", values: sqlValues(slug, projectID), map: TemplateRepository.template)
                .first
        }
    }

    /// The project's most recent template: links made by SDKs without a template use it.
    func mostRecent(projectID: String) throws -> LinkTemplate? {
        try source.read { session in
            try session.query(
                "\(Self.select) WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT 1", values: sqlValues(projectID),
                map: TemplateRepository.template
            ).first
        }
    }

    func list(projectID: String) throws -> [LinkTemplate] {
        try source.read {
            try $0.query(
                "\(Self.select) WHERE project_id = ? ORDER BY created_at, id", values: sqlValues(projectID), map: TemplateRepository.template)
        }
    }
}
