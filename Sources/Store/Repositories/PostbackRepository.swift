import Attribution
import Foundation
import SQLValues
import StoreContracts

/// Postback templates' SQL, values and row mapping.
enum PostbackRepository {
    static let columns = "id, project_id, network, trigger, method, url, body, enabled, created_at, updated_at"

    static let insertSQL = """
        INSERT INTO postback_templates (id, project_id, network, trigger, method, url, body, enabled, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static func insertValues(_ template: PostbackTemplate) -> [SQLValue] {
        let values: [any SQLBindable] = [
            template.id, template.projectID, template.network, template.trigger, template.method, template.url,
            template.body, template.enabled, template.createdAt.milliseconds, template.updatedAt.milliseconds,
        ]
        return values.map(\.sqlValue)
    }
    static let updateSQL = """
        UPDATE postback_templates SET network = ?, trigger = ?, method = ?, url = ?, body = ?, enabled = ?, updated_at = ?
        WHERE id = ? AND project_id = ?
        """
    static func updateValues(_ template: PostbackTemplate) -> [SQLValue] {
        let values: [any SQLBindable] = [
            template.network, template.trigger, template.method, template.url, template.body, template.enabled,
            template.updatedAt.milliseconds, template.id, template.projectID,
        ]
        return values.map(\.sqlValue)
    }
    static let ofProject = "SELECT \(columns) FROM postback_templates WHERE project_id = ? ORDER BY network, created_at"
    static let all = "SELECT \(columns) FROM postback_templates ORDER BY project_id, network"
    static let byID = "SELECT \(columns) FROM postback_templates WHERE id = ? AND project_id = ?"
    static let deleteByID = "DELETE FROM postback_templates WHERE id = ? AND project_id = ?"

    static func template(_ row: some ColumnReader) -> PostbackTemplate {
        PostbackTemplate(
            id: row.string("id"), projectID: row.string("project_id"), network: row.string("network"),
            trigger: row.string("trigger"), method: row.string("method"), url: row.string("url"),
            body: row.optionalString("body"), enabled: row.bool("enabled"),
            createdAt: Timestamp(milliseconds: row.int("created_at")), updatedAt: Timestamp(milliseconds: row.int("updated_at")))
    }
}

/// Postback templates, one implementation for both backends.
struct Postbacks<Source: SessionSource>: PostbackStore {
    let source: Source

    func create(_ template: PostbackTemplate) throws {
        try source.writeSession { try $0.run(PostbackRepository.insertSQL, values: PostbackRepository.insertValues(template)) }
    }

    func templates(projectID: String) throws -> [PostbackTemplate] {
        try source.read { try $0.query(PostbackRepository.ofProject, values: sqlValues(projectID), map: PostbackRepository.template) }
    }

    func allTemplates() throws -> [PostbackTemplate] {
        try source.read { try $0.query(PostbackRepository.all, values: [], map: PostbackRepository.template) }
    }

    func template(id: String, projectID: String) throws -> PostbackTemplate? {
        try source.read { try $0.query(PostbackRepository.byID, values: sqlValues(id, projectID), map: PostbackRepository.template).first }
    }

    func update(_ template: PostbackTemplate) throws -> Bool {
        try source.writeSession { try $0.run(PostbackRepository.updateSQL, values: PostbackRepository.updateValues(template)) > 0 }
    }

    func delete(id: String, projectID: String) throws -> Bool {
        try source.writeSession { try $0.run(PostbackRepository.deleteByID, values: sqlValues(id, projectID)) > 0 }
    }
}
