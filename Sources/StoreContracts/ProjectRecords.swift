public import Attribution

/// A project as created: the only time its token and first API key exist in clear.
public struct CreatedProject: Sendable {
    public let project: Project
    public let token: String
    public let apiKey: IssuedAPIKey

    public init(project: Project, token: String, apiKey: IssuedAPIKey) {
        self.project = project
        self.token = token
        self.apiKey = apiKey
    }
}

public struct IssuedAPIKey: Sendable {
    public let id: String
    public let key: String
    public let prefix: String

    public init(id: String, key: String, prefix: String) {
        self.id = id
        self.key = key
        self.prefix = prefix
    }
}

public struct APIKeyInfo: Sendable, Equatable {
    public let id: String
    public let prefix: String
    public let createdAt: Timestamp
    public let revokedAt: Timestamp?

    public init(id: String, prefix: String, createdAt: Timestamp, revokedAt: Timestamp?) {
        self.id = id
        self.prefix = prefix
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}
