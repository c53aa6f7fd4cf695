import Attribution
import Foundation

/// Postback templates in SQLite.
public struct PostbackRepository: PostbackStore {
    let database: Database

    public init(database: Database) { self.database = database }

    static let columns = "id, project_id, network, trigger, method, url, body, enabled, created_at, updated_at"

    /// Statements and values shared with PostgreSQL (`PGPostbackStore`).
    static let insertSQL = """
        INSERT INTO postback_templates (id, project_id, network, trigger, method, url, body, enabled, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """
    static func insertValues(_ template: PostbackTemplate) -> [PGValue] {
        let values: [any PGBindable] = [template.id, template.projectID, template.network, template.trigger, template.method, template.url,
                                        template.body, template.enabled, template.createdAt.milliseconds, template.updatedAt.milliseconds]
        return values.map(\.pgValue)
    }
    static let updateSQL = """
        UPDATE postback_templates SET network = ?, trigger = ?, method = ?, url = ?, body = ?, enabled = ?, updated_at = ?
        WHERE id = ? AND project_id = ?
        """
    static func updateValues(_ template: PostbackTemplate) -> [PGValue] {
        let values: [any PGBindable] = [template.network, template.trigger, template.method, template.url, template.body, template.enabled,
                                        template.updatedAt.milliseconds, template.id, template.projectID]
        return values.map(\.pgValue)
    }
    static let ofProject = "SELECT \(columns) FROM postback_templates WHERE project_id = ? ORDER BY network, created_at"
    static let all = "SELECT \(columns) FROM postback_templates ORDER BY project_id, network"
    static let byID = "SELECT \(columns) FROM postback_templates WHERE id = ? AND project_id = ?"
    static let deleteByID = "DELETE FROM postback_templates WHERE id = ? AND project_id = ?"

    static func template(_ row: some ColumnReader) -> PostbackTemplate {
        PostbackTemplate(id: row.string("id"), projectID: row.string("project_id"), network: row.string("network"),
                         trigger: row.string("trigger"), method: row.string("method"), url: row.string("url"),
                         body: row.optionalString("body"), enabled: row.bool("enabled"),
                         createdAt: Timestamp(milliseconds: row.int("created_at")), updatedAt: Timestamp(milliseconds: row.int("updated_at")))
    }

    public func create(_ template: PostbackTemplate) throws {
        try database.writeAndWait { connection in
            try connection.run(Self.insertSQL, values: Self.insertValues(template))
        }
    }

    public func templates(projectID: String) throws -> [PostbackTemplate] {
        try database.read { connection in
            try connection.query(Self.ofProject, projectID, map: Self.template)
        }
    }

    public func allTemplates() throws -> [PostbackTemplate] {
        try database.read { connection in
            try connection.query(Self.all, map: Self.template)
        }
    }

    public func template(id: String, projectID: String) throws -> PostbackTemplate? {
        try database.read { connection in
            try connection.queryOne(Self.byID, id, projectID, map: Self.template)
        }
    }

    public func update(_ template: PostbackTemplate) throws -> Bool {
        try database.writeAndWait { connection in
            try connection.run(Self.updateSQL, values: Self.updateValues(template)) > 0
        }
    }

    public func delete(id: String, projectID: String) throws -> Bool {
        try database.writeAndWait { connection in
            try connection.run(Self.deleteByID, id, projectID) > 0
        }
    }
}
