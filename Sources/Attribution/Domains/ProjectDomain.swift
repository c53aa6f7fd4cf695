/// A host name a project's links are served on (`links.shop.com`), owned by that project only.
public struct ProjectDomain: Sendable, Equatable {
    public let id: String
    public let projectID: String
    /// The name as DNS carries it: lower-cased ASCII, internationalised labels in their `xn--` form.
    public let domain: String
    public let createdAt: Timestamp

    public init(id: String, projectID: String, domain: String, createdAt: Timestamp) {
        self.id = id
        self.projectID = projectID
        self.domain = domain
        self.createdAt = createdAt
    }
}
