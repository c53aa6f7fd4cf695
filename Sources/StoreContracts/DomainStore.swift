public import Attribution

/// Projects' own link domains (`project_domains`).
public protocol DomainStore: Sendable {
    /// Stores the claim; `StoreError.conflict` when any project already has the name.
    func add(_ domain: ProjectDomain) throws
    func list(projectID: String) throws -> [ProjectDomain]
    /// False when the project has no such domain. The project's links on it are deleted in the
    /// same transaction: a name given up keeps no links for the next project that claims it.
    func remove(id: String, projectID: String) throws -> Bool
    /// Every project's domains (the host map every node keeps in memory).
    func all() throws -> [ProjectDomain]
}
