public import Attribution
import Cryptography
import Foundation
public import JSON
public import StoreContracts

/// A project's ad-platform connections (docs/ad-platforms/): saved whole, checked for what each
/// platform needs, secrets kept but never shown whole; an install's consent; and test events.
public struct AdPlatformService: Sendable {
    let store: any StoreBackend
    let clock: any Clock
    let settings: AdPlatformSettings
    let delivery: AdPlatformDelivery

    /// What a connection is made of: the settings and secrets each platform takes, and which of
    /// them it cannot do without.
    public struct Shape: Sendable {
        public let settings: [String]
        public let secrets: [String]
        public let requiredSettings: [String]
        public let requiredSecrets: [String]
    }

    public static func shape(of platform: AdPlatform) -> Shape {
        switch platform {
        case .google:
            Shape(
                settings: ["link_id_ios", "link_id_android"], secrets: ["developer_token"], requiredSettings: [],
                requiredSecrets: ["developer_token"])
        case .meta:
            Shape(
                settings: ["dataset_id", "app_id", "app_package", "test_event_code", "limited_data_use"],
                secrets: ["access_token", "install_referrer_key"], requiredSettings: ["dataset_id"], requiredSecrets: ["access_token"])
        case .tiktok:
            Shape(
                settings: ["event_source_id", "app_id", "test_event_code"], secrets: ["access_token"], requiredSettings: ["event_source_id"],
                requiredSecrets: ["access_token"])
        case .snap:
            Shape(
                settings: ["snap_app_id", "app_store_id", "app_package"], secrets: ["access_token"], requiredSettings: ["snap_app_id"],
                requiredSecrets: ["access_token"])
        }
    }

    /// A connection as a client sends it: settings and secrets by name (a secret left out keeps
    /// its stored value, so a form that shows secrets masked can be saved again).
    public struct Fields: Sendable {
        public var settings: [String: String]
        public var secrets: [String: String]
        public var eventMapping: AdEventMapping?
        public var enabled: Bool?

        public init(settings: [String: String], secrets: [String: String], eventMapping: AdEventMapping? = nil, enabled: Bool? = nil) {
            self.settings = settings
            self.secrets = secrets
            self.eventMapping = eventMapping
            self.enabled = enabled
        }
    }

    public func save(projectID: String, platform: AdPlatform, _ fields: Fields) throws -> AdPlatformConnection {
        let existing = try store.adPlatforms.connection(projectID: projectID, platform: platform)
        let shape = Self.shape(of: platform)
        var problems: [ValidationProblem] = []
        for (key, value) in fields.settings {
            if !shape.settings.contains(key) {
                problems.append(ValidationProblem(key, "is not a \(platform.displayName) setting; known: \(shape.settings.joined(separator: ", "))"))
            } else if let problem = Self.problem(key: key, value: value, platform: platform) {
                problems.append(problem)
            }
        }
        for (key, value) in fields.secrets {
            if !shape.secrets.contains(key) {
                problems.append(
                    ValidationProblem(key, "is not a \(platform.displayName) credential; known: \(shape.secrets.joined(separator: ", "))"))
            } else if let problem = Self.problem(key: key, value: value, platform: platform) {
                problems.append(problem)
            }
        }
        let secrets = (existing?.secrets ?? [:]).merging(fields.secrets) { _, new in new }
        for key in shape.requiredSettings where fields.settings[key] == nil { problems.append(ValidationProblem(key, "is required")) }
        for key in shape.requiredSecrets where secrets[key] == nil { problems.append(ValidationProblem(key, "is required")) }
        if platform == .google, fields.settings["link_id_ios"] == nil, fields.settings["link_id_android"] == nil {
            problems.append(ValidationProblem("link_ids", "needs an ios or android link id (Google Ads: Third-party app analytics, Other provider)"))
        }
        for (ours, theirs) in fields.eventMapping?.overrides ?? [:] {
            if !(1...256).contains(ours.count) { problems.append(ValidationProblem("event_mapping", "event names are 1 to 256 characters")) }
            if let theirs, !(1...128).contains(theirs.count) {
                problems.append(ValidationProblem("event_mapping.\(ours)", "must be the platform's event name (1 to 128 characters) or null"))
            }
        }
        try AppError.throwIfAny(problems)
        let now = clock.now()
        let connection = AdPlatformConnection(
            projectID: projectID, platform: platform, settings: fields.settings, secrets: secrets,
            eventMapping: fields.eventMapping ?? existing?.eventMapping ?? AdEventMapping(), enabled: fields.enabled ?? existing?.enabled ?? true,
            createdAt: existing?.createdAt ?? now, updatedAt: now)
        try store.adPlatforms.save(connection)
        return connection
    }

    private static func problem(key: String, value: String, platform: AdPlatform) -> ValidationProblem? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed == value, value.utf8.count <= 2048, !value.contains(where: { $0.isNewline }) else {
            return ValidationProblem(key, "must be 1 to 2048 characters without surrounding spaces or line breaks")
        }
        switch key {
        case "install_referrer_key":
            // AES-256: 32 bytes, as Meta's App Dashboard shows it (64 hex digits).
            guard value.utf8.count == 64, value.allSatisfy(\.isHexDigit) else {
                return ValidationProblem(key, "must be the 64 hexadecimal digits of Meta's install referrer decryption key")
            }
        case "limited_data_use":
            guard value == "true" || value == "false" else { return ValidationProblem(key, "must be \"true\" or \"false\"") }
        default: break
        }
        return nil
    }

    public func connection(projectID: String, platform: AdPlatform) throws -> AdPlatformConnection {
        guard let connection = try store.adPlatforms.connection(projectID: projectID, platform: platform) else {
            throw AppError.notFound("project \(projectID) has no \(platform.displayName) connection")
        }
        return connection
    }

    public func connections(projectID: String) throws -> [AdPlatformConnection] { try store.adPlatforms.connections(projectID: projectID) }

    public func delete(projectID: String, platform: AdPlatform) throws {
        guard try store.adPlatforms.delete(projectID: projectID, platform: platform) else {
            throw AppError.notFound("project \(projectID) has no \(platform.displayName) connection")
        }
    }

    /// A secret as pages and the API show it: its last four characters.
    public static func masked(_ secret: String) -> String { secret.count <= 8 ? "••••" : "••••" + secret.suffix(4) }

    /// Queues a test event through the outbox, in the platform's test mode where it has one
    /// (Meta's and TikTok's `test_event_code`, Snap's validation endpoint; Google has none, so its
    /// test event is a first_open of a device that never was). Returns the job's id.
    public func sendTestEvent(projectID: String, platform: AdPlatform) throws -> String {
        _ = try connection(projectID: projectID, platform: platform)
        let now = clock.now()
        let conversion = AdConversion(kind: .install, name: "install", factID: "test-" + TimeOrderedID.secure(at: now), occurredAt: now.milliseconds)
        let message = AdPlatformJob(platform: platform, conversion: conversion, test: true).message(projectID: projectID, at: now)
        try store.outbox.enqueue([message])
        return message.id
    }

    /// Replaces what the install's user agreed to (the admin API's consent call).
    public func setConsent(_ consent: Consent, installID: String, projectID: String) throws {
        guard try store.adPlatforms.setConsent(consent, installID: installID, projectID: projectID) else {
            throw AppError.notFound("project \(projectID) has no install \(installID)")
        }
    }

    /// The install's consent as told (nil: nothing) and its ad signals.
    public func consent(installID: String, projectID: String) throws -> (consent: Consent?, signals: AdSignals) {
        guard let stored = try store.adPlatforms.consent(installID: installID, projectID: projectID) else {
            throw AppError.notFound("project \(projectID) has no install \(installID)")
        }
        return stored
    }

    public func claims(installID: String) throws -> [StoredAdClaim] { try store.adPlatforms.claims(installID: installID) }

    /// The install's claims as the explain view shows them, each with whether it holds the install.
    public func claimsShown(installID: String) throws -> [JSONValue] {
        try claims(installID: installID).map { stored in
            guard case .object(var claim) = WebhookEvents.adPlatformClaim(stored.claim) else { return .null }
            claim["won"] = .bool(stored.won)
            claim["received_at"] = .string(stored.receivedAt.iso8601)
            return .object(claim)
        }
    }
}
