import Attribution
import Cryptography
import Foundation
import JSON
import StoreContracts

/// An `ad_platform` outbox job's payload: the fact to send, or Google's cross-network call, or a
/// connection's test event. The request itself is made when the job is sent, from the install as
/// it is then (consent withdrawn since stops it; an erased install's jobs are gone with it).
struct AdPlatformJob: Codable, Equatable, Sendable {
    var platform: AdPlatform
    var conversion: AdConversion
    /// The install the fact is of (none for a test event).
    var installID: String?
    var test: Bool?
    /// Google's cross-network call: its ad event and whether it won the install.
    var crossNetwork: CrossNetwork?

    struct CrossNetwork: Codable, Equatable, Sendable {
        var adEventID: String
        var attributed: Bool

        enum CodingKeys: String, CodingKey {
            case adEventID = "ad_event_id"
            case attributed
        }
    }

    enum CodingKeys: String, CodingKey {
        case platform, conversion, test
        case installID = "install_id"
        case crossNetwork = "cross_network"
    }

    /// The job for its platform. Its target names the platform (`ad-platform://meta`), which the
    /// worker's per-host limit reads; the URL the request goes to is made when it is sent.
    func message(projectID: String, at time: Timestamp) -> OutboxMessage {
        let type = crossNetwork == nil ? conversion.name : "cross_network"
        let key = crossNetwork == nil ? conversion.deduplicationKey : "cross_network:\(conversion.factID)"
        return OutboxMessage(
            id: TimeOrderedID.secure(at: time), projectID: projectID, kind: AdPlatform.jobKind, targetID: platform.rawValue,
            targetURL: Self.target(platform), eventID: key, eventType: type,
            payload: String(decoding: payload(naming: true).serialized(), as: UTF8.self), createdAt: time, installID: installID)
    }

    static func target(_ platform: AdPlatform) -> String { "ad-platform://" + platform.rawValue }

    /// One job for every platform the project has connected when the job is moved out of
    /// `outbox_new` (`OutboxRepository.promote` makes one per connection): what a fact writes in
    /// its own transaction where the facts are not the outbox's log (PostgreSQL). Four rows per
    /// event cost half of capture-event's throughput there (docs/performance.md).
    static func everyPlatform(_ conversion: AdConversion, installID: String, projectID: String, at time: Timestamp) -> OutboxMessage {
        let job = AdPlatformJob(platform: .google, conversion: conversion, installID: installID)
        return OutboxMessage(
            id: TimeOrderedID.secure(at: time), projectID: projectID, kind: AdPlatform.jobKind, targetID: nil, targetURL: "ad-platform://",
            eventID: conversion.deduplicationKey, eventType: conversion.name,
            payload: String(decoding: job.payload(naming: false).serialized(), as: UTF8.self), createdAt: time, installID: installID)
    }

    /// A job as the worker holds it: its platform from the payload, or from its target where one
    /// job per connection was made from `everyPlatform`'s.
    static func read(_ message: OutboxMessage) -> AdPlatformJob? {
        guard case .object(var object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(message.payload.utf8)) else { return nil }
        if object["platform"] == nil, let platform = message.targetID { object["platform"] = .string(platform) }
        return try? JSONDecoder().decode(AdPlatformJob.self, from: Data(JSONValue.object(object).serialized()))
    }

    /// What `read` decodes, written with the one JSON writer (this runs in the fact's transaction
    /// where the facts are not the outbox's log; JSONEncoder cost several times as much).
    func payload(naming: Bool) -> JSONValue {
        var fact: [String: JSONValue] = [
            "kind": .string(conversion.kind.rawValue), "name": .string(conversion.name), "fact_id": .string(conversion.factID),
            "occurred_at": .number(Double(conversion.occurredAt)),
        ]
        if let revenue = conversion.revenue, revenue.isFinite { fact["revenue"] = .number(revenue) }
        if let currency = conversion.currency { fact["currency"] = .string(currency) }
        var object: [String: JSONValue] = ["conversion": .object(fact)]
        if naming { object["platform"] = .string(platform.rawValue) }
        if let installID { object["install_id"] = .string(installID) }
        if let test { object["test"] = .bool(test) }
        if let crossNetwork {
            object["cross_network"] = .object(["ad_event_id": .string(crossNetwork.adEventID), "attributed": .bool(crossNetwork.attributed)])
        }
        return .object(object)
    }

    static func read(_ payload: String) -> AdPlatformJob? { try? JSONDecoder().decode(AdPlatformJob.self, from: Data(payload.utf8)) }
}
