/// What a commit changed, as the caches and the outbox worker listen for it. Each is one table;
/// the names stay inside the store.
public enum ChangeTopic: String, Sendable, CaseIterable {
    case projects
    case apiKeys = "api_keys"
    case signingKeys = "signing_keys"
    case templates
    case links
    case domains = "project_domains"
    /// Certificates the server got (ACME): other nodes install them at once.
    case certificates = "domain_certificates"
    case webhookEndpoints = "webhook_endpoints"
    case postbackTemplates = "postback_templates"
    case adPlatformConnections = "ad_platform_connections"
    /// Jobs written with their fact, waiting to be moved into the job table.
    case newJobs = "outbox_new"
    case jobs = "outbox_jobs"
    case events
    case installs

    /// The topics of these table names (others are nobody's topic).
    package static func of(tables: some Sequence<String>) -> Set<ChangeTopic> { Set(tables.compactMap(ChangeTopic.init(rawValue:))) }
}

/// What another process changed in the tables kept in memory (`observeOtherProcesses`).
public struct TopicChange: Sendable, Equatable {
    public let topic: ChangeTopic
    /// For `links`: the short code whose cache entry is stale; nil: every link.
    public let linkCode: String?

    public init(topic: ChangeTopic, linkCode: String? = nil) {
        self.topic = topic
        self.linkCode = linkCode
    }
}
