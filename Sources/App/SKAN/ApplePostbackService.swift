public import Attribution
import Cryptography
import Foundation
import JSON
import StoreContracts
import Synchronization

/// Apple's postback copies (docs/skan-postbacks.md): verified, matched to the project whose app
/// they name, stored once, forwarded unchanged through the outbox, and reported per network,
/// source and window.
public final class ApplePostbackService: Sendable {
    public enum Receipt: Sendable, Equatable {
        case stored(StoredApplePostback)
        /// The project already has this copy: nothing changed.
        case duplicate
    }

    public enum Refusal: Error, Sendable, Equatable {
        case rejected(PostbackRejection)
        /// No project has this App Store id.
        case unknownApp(Int64)
    }

    let store: any StoreBackend
    let clock: any Clock
    let outbound: OutboundMessages
    let schemas: SKANSchemaCache
    let policy: OutboundAddressPolicy
    /// Apple's keys; tests put in their own (`useKeys`) to sign AdAttributionKit postbacks.
    private let keys = Mutex(ApplePostbackKeys.apple)

    init(store: any StoreBackend, clock: any Clock, outbound: OutboundMessages, schemas: SKANSchemaCache, policy: OutboundAddressPolicy) {
        self.policy = policy
        self.store = store
        self.clock = clock
        self.outbound = outbound
        self.schemas = schemas
    }

    /// The test-only seam: verify with these keys instead of Apple's.
    func useKeys(_ keys: [String: [UInt8]]) { self.keys.withLock { $0 = ApplePostbackKeys(keys: keys) } }

    /// Verifies and stores one copy as the device POSTed it.
    public func receive(_ body: [UInt8], framework: ApplePostback.Framework) throws -> Result<Receipt, Refusal> {
        let parsed: (postback: ApplePostback, signature: PostbackSignature)
        switch ApplePostbackParser.parse(body, framework: framework) {
        case .failure(let rejection): return .failure(.rejected(rejection))
        case .success(let value): parsed = value
        }
        let (postback, signature) = parsed
        guard let key = keys.withLock({ $0.keys[signature.keyID] }) else {
            return .failure(.rejected(PostbackRejection(code: "bad_signature", message: "'kid' \(signature.keyID) is not a key Apple signs with")))
        }
        guard ES256.verify(signature.signature, isDER: signature.encoding == .der, message: signature.message, publicKeyDER: key) else {
            return .failure(.rejected(.badSignature))
        }
        let owners = try store.projects.list().filter { $0.settings.appStoreID == postback.appID }
        // Development keys sign what a developer's own device sends: test-mode projects only.
        guard let project = postback.isDevelopment ? owners.first(where: \.testMode) : owners.first(where: { !$0.testMode }) ?? owners.first
        else {
            if postback.isDevelopment && !owners.isEmpty {
                return .failure(
                    .rejected(
                        PostbackRejection(
                            code: "development_key", message: "postbacks signed with a development key are accepted for test-mode projects only")))
            }
            return .failure(.unknownApp(postback.appID))
        }
        let now = clock.now()
        let stored = StoredApplePostback(
            id: TimeOrderedID.secure(at: now), projectID: project.id, postback: postback, rawBody: String(decoding: body, as: UTF8.self),
            receivedAt: now)
        let messages = postback.isDevelopment ? [] : try outboxMessages(for: stored, project: project)
        return .success(try store.applePostbacks.insert(stored, messages: messages) ? .stored(stored) : .duplicate)
    }

    /// The body forwarded unchanged to each configured URL, and the `skan.postback.received`
    /// webhook. A development copy is test traffic: neither (docs/outbound.md, "Test traffic").
    func outboxMessages(for stored: StoredApplePostback, project: Project) throws -> [OutboxMessage] {
        let forwards = project.settings.skanForwarding.map { url in
            OutboxMessage(
                id: TimeOrderedID.secure(at: stored.receivedAt), projectID: project.id, kind: "skan_copy", targetID: nil,
                targetURL: url, eventID: stored.id, eventType: "skan.postback.copy", payload: stored.rawBody, createdAt: stored.receivedAt)
        }
        let subscribers = try outbound.subscribers(of: .skanPostbackReceived, projectID: project.id)
        let webhooks = WebhookEvents.messages(
            .skanPostbackReceived, data: ApplePostbackJSON.object(stored, decoded: decode(stored.postback, project: project)),
            projectID: project.id, at: stored.receivedAt, to: subscribers)
        return forwards + webhooks
    }

    /// What the copy's values stand for under the project's schema (nil without a schema).
    public func decode(_ postback: ApplePostback, project: Project) -> (fine: SKANDecodedValue?, coarse: SKANDecodedValue?) {
        guard let schema = schemas.context(for: project)?.schema else { return (nil, nil) }
        return (
            postback.fineValue.flatMap { SKANValueDecoder.decode(fine: $0, sequenceIndex: postback.sequenceIndex, schema: schema) },
            postback.coarseValue.flatMap { SKANValueDecoder.decode(coarse: $0, sequenceIndex: postback.sequenceIndex, schema: schema) }
        )
    }

    /// Newest first; `before` is the previous page's last (time, id).
    public func list(project: Project, since: Timestamp, until: Timestamp, before: (Timestamp, String)?, limit: Int) throws
        -> [StoredApplePostback]
    {
        try store.applePostbacks.list(projectID: project.id, since: since, until: until, before: before, limit: limit)
    }

    /// Forwarding URLs replace the ones set before.
    public func setForwarding(_ urls: [String], project: Project) throws -> Project {
        var updated = project
        updated.settings.skanForwarding = urls
        var problems = updated.settings.validate().filter { $0.key.hasPrefix("urls") }
        if problems.isEmpty {
            for (index, url) in urls.enumerated() {
                if let refusal = policy.refusal(for: url) { problems.append(ValidationProblem("urls[\(index)]", refusal)) }
            }
        }
        try AppError.throwIfAny(problems)
        guard let saved = try store.projects.update(updated) else { throw AppError.notFound("no project '\(project.id)'") }
        return saved
    }
}
