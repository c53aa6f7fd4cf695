public import Attribution
import Cryptography
public import StoreContracts

/// Apple Ads attribution's use cases on the request side: keeping an install's AdServices token
/// and queueing its exchange (a durable outbox job the delivery worker sends), and reading the
/// answer for the SDK APIs.
public struct AppleAdsService: Sendable {
    let store: any StoreBackend
    let settings: AppleAdsSettings

    /// Keeps the token of `install` and queues its exchange, unless the project turned Apple Ads
    /// off, the text is not a token, or Apple already answered for this install. `completion`
    /// gets whether an exchange was queued; the caller answers its client after it, so the job is
    /// durable before the client hears anything.
    public func capture(
        _ rawToken: String?, installID: String, project: Project, at time: Timestamp,
        delivery: WriteDelivery?, completion: @escaping @Sendable (Result<Bool, any Error>) -> Void
    ) {
        guard project.settings.appleAds, let token = AppleAdsTokenText.valid(rawToken) else { return completion(.success(false)) }
        let id = TimeOrderedID.secure(at: time)
        let exchange = OutboxMessage(
            id: id, projectID: project.id, kind: "apple_ads", targetID: installID, targetURL: settings.url,
            eventID: "aa_" + String(id.filter { $0 != "-" }), eventType: "apple_ads.exchange", payload: "{}",
            createdAt: time)
        store.appleAds.capture(
            installID: installID, projectID: project.id, token: token, at: time, exchange: exchange,
            delivery: delivery, completion: completion)
    }

    /// The install's claim: pending, Apple's answer, or failed; nil when it never carried a token.
    public func claim(installID: String) throws -> AppleAdsClaim? { try store.appleAds.claim(installID: installID) }

    // MARK: Campaign Management API (names, optional)

    /// Saves the project's API credentials after checking each field (`AppError.invalid` names them).
    public func setCredentials(_ credentials: AppleAdsCredentials, projectID: String, at time: Timestamp) throws {
        var problems: [ValidationProblem] = []
        for (key, value) in [("client_id", credentials.clientID), ("team_id", credentials.teamID), ("key_id", credentials.keyID)]
        where value.isEmpty || value.count > 128 || value.contains(where: { $0.isWhitespace }) {
            problems.append(.init(key, "must be 1 to 128 characters without spaces"))
        }
        if !AppleAdsNameFetcher.isPathSegmentSafe(credentials.orgID) { problems.append(.init("org_id", "must be Apple's numeric organisation id")) }
        if !ES256.isPrivateKey(credentials.privateKey) { problems.append(.init("private_key", "must be an EC P-256 private key in PEM")) }
        try AppError.throwIfAny(problems)
        try store.appleAdsNames.setCredentials(credentials, projectID: projectID, at: time)
    }

    public func credentials(projectID: String) throws -> AppleAdsCredentials? { try store.appleAdsNames.credentials(projectID: projectID) }

    public func deleteCredentials(projectID: String) throws {
        guard try store.appleAdsNames.deleteCredentials(projectID: projectID) else {
            throw AppError.notFound("project \(projectID) has no Apple Ads API credentials")
        }
    }

    /// The names fetched so far for the project's campaigns, ad groups and keywords.
    public func names(projectID: String) throws -> AppleAdsNames { try store.appleAdsNames.names(projectID: projectID) }

    public func names(of answer: AppleAdsAnswer, projectID: String) throws -> AppleAdsNames {
        try store.appleAdsNames.names(of: answer, projectID: projectID)
    }
}
