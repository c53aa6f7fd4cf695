public import Attribution

/// A project's template for telling an ad network of an install, event or payment it drove.
public struct PostbackTemplate: Sendable, Equatable {
    public var id: String
    public var projectID: String
    /// Matched, case-insensitively, against the `utm_source` of the install's attributed click.
    public var network: String
    /// `install`, `payment`, or an event name.
    public var trigger: String
    /// `GET` or `POST`.
    public var method: String
    public var url: String
    public var body: String?
    public var enabled: Bool
    public var createdAt: Timestamp
    public var updatedAt: Timestamp

    public init(
        id: String, projectID: String, network: String, trigger: String, method: String, url: String, body: String?,
        enabled: Bool, createdAt: Timestamp, updatedAt: Timestamp
    ) {
        self.id = id
        self.projectID = projectID
        self.network = network
        self.trigger = trigger
        self.method = method
        self.url = url
        self.body = body
        self.enabled = enabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Postback templates.
public protocol PostbackStore: Sendable {
    func create(_ template: PostbackTemplate) throws
    func templates(projectID: String) throws -> [PostbackTemplate]
    /// Every project's templates (the cache in front of the hot paths loads them at once).
    func allTemplates() throws -> [PostbackTemplate]
    func template(id: String, projectID: String) throws -> PostbackTemplate?
    func update(_ template: PostbackTemplate) throws -> Bool
    func delete(id: String, projectID: String) throws -> Bool
}
