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

    func message(projectID: String, baseURL: String, at time: Timestamp) -> OutboxMessage {
        let id = TimeOrderedID.secure(at: time)
        let type = crossNetwork == nil ? conversion.name : "cross_network"
        let key = crossNetwork == nil ? conversion.deduplicationKey(for: platform) : "cross_network:\(conversion.factID)"
        return OutboxMessage(
            id: id, projectID: projectID, kind: AdPlatform.jobKind, targetID: platform.rawValue, targetURL: baseURL, eventID: key,
            eventType: type, payload: String(decoding: payload.serialized(), as: UTF8.self),
            createdAt: time, installID: installID)
    }

    /// What `read` decodes, written with the one JSON writer (this runs in the fact's transaction
    /// where the facts are not the outbox's log; JSONEncoder cost several times as much).
    var payload: JSONValue {
        var fact: [String: JSONValue] = [
            "kind": .string(conversion.kind.rawValue), "name": .string(conversion.name), "fact_id": .string(conversion.factID),
            "occurred_at": .number(Double(conversion.occurredAt)),
        ]
        if let revenue = conversion.revenue, revenue.isFinite { fact["revenue"] = .number(revenue) }
        if let currency = conversion.currency { fact["currency"] = .string(currency) }
        var object: [String: JSONValue] = ["platform": .string(platform.rawValue), "conversion": .object(fact)]
        if let installID { object["install_id"] = .string(installID) }
        if let test { object["test"] = .bool(test) }
        if let crossNetwork {
            object["cross_network"] = .object(["ad_event_id": .string(crossNetwork.adEventID), "attributed": .bool(crossNetwork.attributed)])
        }
        return .object(object)
    }

    static func read(_ payload: String) -> AdPlatformJob? { try? JSONDecoder().decode(AdPlatformJob.self, from: Data(payload.utf8)) }
}
