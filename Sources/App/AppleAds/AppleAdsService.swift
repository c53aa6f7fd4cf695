public import Attribution
public import Store

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
    public func capture(_ rawToken: String?, installID: String, project: Project, at time: Timestamp,
                        delivery: DatabaseWriter.Delivery?, completion: @escaping @Sendable (Result<Bool, any Error>) -> Void) {
        guard project.settings.appleAds, let token = AppleAdsTokenText.valid(rawToken) else { return completion(.success(false)) }
        let id = TimeOrderedID.secure(at: time)
        let exchange = OutboxMessage(id: id, projectID: project.id, kind: "apple_ads", targetID: installID, targetURL: settings.url,
                                     eventID: "aa_" + String(id.filter { $0 != "-" }), eventType: "apple_ads.exchange", payload: "{}",
                                     createdAt: time)
        store.appleAds.capture(installID: installID, projectID: project.id, token: token, at: time, exchange: exchange,
                               delivery: delivery, completion: completion)
    }

    /// The install's claim: pending, Apple's answer, or failed; nil when it never carried a token.
    public func claim(installID: String) throws -> AppleAdsClaim? { try store.appleAds.claim(installID: installID) }
}
