public import Attribution

/// Projects' own link domains (`project_domains`).
public protocol DomainStore: Sendable {
    /// Stores the claim; `StoreError.conflict` when any project already has the name.
    func add(_ domain: ProjectDomain) throws
    func list(projectID: String) throws -> [ProjectDomain]
    /// False when the project has no such domain.
    func remove(id: String, projectID: String) throws -> Bool
    /// Every project's domains (the host map every node keeps in memory).
    func all() throws -> [ProjectDomain]
}
