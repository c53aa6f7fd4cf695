public import Attribution
import Foundation

/// Short links on PostgreSQL: `LinkRepository`'s behaviour, its SQL and row mapping shared.
/// (Deleting a link moves its counted clicks to "no link" in SQLite's rollups by trigger; the
/// rollups are not kept on PostgreSQL yet, docs/scale-out.md.)
public struct PGLinkStore: LinkStore {
    let pool: PGPool

    public init(pool: PGPool) { self.pool = pool }

    private static let select = "SELECT \(LinkRepository.columns) FROM links"

    public func create(_ link: Link, codeIsCustom: Bool) throws -> Link {
        var link = link
        for attempt in 0..<5 {
            do {
                try pool.transaction { [link] connection in
                    try connection.run(LinkRepository.insertSQL, values: LinkRepository.insertValues(link))
                }
                return link
            } catch let error as PGError where error.isUniqueViolation && error.message.contains("short_code") {
                if codeIsCustom { throw StoreError.conflict("short code '\(link.shortCode)' is already taken") }
                if attempt == 4 { throw error }
                link.shortCode = ShortCode.generate()
            }
        }
        return link
    }

    public func update(_ link: Link) throws -> Link? {
        do {
            let changed = try pool.transaction { connection in
                try connection.run(LinkRepository.updateSQL, values: LinkRepository.updateValues(link))
            }
            return changed > 0 ? link : nil
        } catch let error as PGError where error.isUniqueViolation {
            throw StoreError.conflict("short code '\(link.shortCode)' is already taken")
        }
    }

    public func delete(id: String, projectID: String) throws -> Bool {
        try pool.transaction { try $0.run("DELETE FROM links WHERE id = ? AND project_id = ?", id, projectID) > 0 }
    }

    public func find(id: String, projectID: String) throws -> Link? {
        try pool.read { try $0.queryOne("\(Self.select) WHERE id = ? AND project_id = ?", id, projectID, map: LinkRepository.link) }
    }

    public func find(shortCode: String) throws -> (link: Link, clicks: Int)? {
        try pool.read { connection in
            try connection.queryOne("\(Self.select) WHERE short_code = ?", shortCode) { row in
                (LinkRepository.link(row), Int(row.int("click_count")))
            }
        }
    }

    public func list(projectID: String, limit: Int, offset: Int) throws -> [Link] {
        try pool.read { connection in
            try connection.query(
                "\(Self.select) WHERE project_id = ? ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
                projectID, limit, offset, map: LinkRepository.link)
        }
    }

    /// ILIKE: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
    public func search(projectID: String, text: String, limit: Int, offset: Int) throws -> [Link] {
        try pool.read { connection in
            try connection.query(
                """
                \(Self.select) WHERE project_id = $1 AND (short_code ILIKE $2 ESCAPE '\\' OR title ILIKE $2 ESCAPE '\\')
                ORDER BY created_at DESC, id LIMIT $3 OFFSET $4
                """, projectID, LinkRepository.containsPattern(text), limit, offset, map: LinkRepository.link)
        }
    }

    public func forEach(batchSize: Int, _ body: (Link) throws -> Void) throws {
        var after = ""
        while true {
            let batch = try pool.read { connection in
                try connection.query("\(Self.select) WHERE id > ? ORDER BY id LIMIT ?", after, batchSize, map: LinkRepository.link)
            }
            for link in batch { try body(link) }
            guard batch.count == batchSize, let last = batch.last else { return }
            after = last.id
        }
    }

    public func findDuplicate(projectID: String, externalUserID: String, optionsHash: String) throws -> Link? {
        try pool.read { connection in
            try connection.queryOne(
                """
                \(Self.select) WHERE project_id = ? AND external_user_id = ? AND options_hash = ? AND active
                ORDER BY created_at LIMIT 1
                """, projectID, externalUserID, optionsHash, map: LinkRepository.link)
        }
    }
}
