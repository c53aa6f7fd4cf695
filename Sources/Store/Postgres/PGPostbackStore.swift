/// Postback templates on PostgreSQL: `PostbackRepository`'s statements, values and row mapping.
public struct PGPostbackStore: PostbackStore {
    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    public func create(_ template: PostbackTemplate) throws {
        try pool.transaction { try $0.run(PostbackRepository.insertSQL, values: PostbackRepository.insertValues(template)) }
    }

    public func templates(projectID: String) throws -> [PostbackTemplate] {
        try pool.read { try $0.query(PostbackRepository.ofProject, projectID, map: PostbackRepository.template) }
    }

    public func allTemplates() throws -> [PostbackTemplate] {
        try pool.read { try $0.query(PostbackRepository.all, map: PostbackRepository.template) }
    }

    public func template(id: String, projectID: String) throws -> PostbackTemplate? {
        try pool.read { try $0.queryOne(PostbackRepository.byID, id, projectID, map: PostbackRepository.template) }
    }

    public func update(_ template: PostbackTemplate) throws -> Bool {
        try pool.transaction { try $0.run(PostbackRepository.updateSQL, values: PostbackRepository.updateValues(template)) > 0 }
    }

    public func delete(id: String, projectID: String) throws -> Bool {
        try pool.transaction { try $0.run(PostbackRepository.deleteByID, id, projectID) > 0 }
    }
}
