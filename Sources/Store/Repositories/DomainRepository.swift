import Attribution
import StoreContracts

/// Projects' link domains on either backend.
struct Domains<Source: SessionSource>: DomainStore {
    let source: Source

    static var columns: String { "id, project_id, domain, created_at" }

    func add(_ domain: ProjectDomain) throws {
        do {
            try source.writeSession { connection in
                try connection.run(
                    "INSERT INTO project_domains (id, project_id, domain, created_at) VALUES (?, ?, ?, ?)", domain.id, domain.projectID,
                    domain.domain, domain.createdAt.milliseconds)
            }
        } catch  where isUniqueViolation(error, of: "domain") {
            throw StoreError.conflict("the domain '\(domain.domain)' is already claimed")
        }
    }

    func list(projectID: String) throws -> [ProjectDomain] {
        try source.read { connection in
            try connection.query(
                "SELECT \(Self.columns) FROM project_domains WHERE project_id = ? ORDER BY created_at, id", projectID, map: Self.domain)
        }
    }

    func remove(id: String, projectID: String) throws -> Bool {
        try source.writeSession { connection in
            let condition = "project_id = ? AND domain = (SELECT domain FROM project_domains WHERE id = ? AND project_id = ?)"
            let links = try connection.query("SELECT id FROM links WHERE " + condition, projectID, id, projectID) { $0.string(0) }
            try CountedWrites.deletingLinks(projectID: projectID, links, connection) {
                try connection.run("DELETE FROM links WHERE " + condition, projectID, id, projectID)
            }
            return try connection.run("DELETE FROM project_domains WHERE id = ? AND project_id = ?", id, projectID) > 0
        }
    }

    func all() throws -> [ProjectDomain] {
        try source.read { connection in
            try connection.query("SELECT \(Self.columns) FROM project_domains ORDER BY domain", map: Self.domain)
        }
    }

    static func domain(_ row: some ColumnReader) -> ProjectDomain {
        ProjectDomain(
            id: row.string(0), projectID: row.string(1), domain: row.string(2), createdAt: Timestamp(milliseconds: row.int(3)))
    }
}
