import Attribution
import Foundation
import JSON
import Store

/// The webhook jobs of one fact: the Standard Webhooks body `{"type", "timestamp", "data"}`, one
/// job per endpoint that wants the type, all under one event id (the receiver's dedupe key).
enum WebhookEvents {
    static func messages(_ type: WebhookEventType, data: [String: JSONValue], projectID: String, at time: Timestamp,
                         to subscribers: [WebhookEndpoint]) -> [OutboxMessage] {
        Prepared(type, projectID: projectID, at: time, to: subscribers).messages(data: data)
    }

    /// What a fact's webhook jobs have before the fact's transaction: ids, the envelope around
    /// `data`, the endpoints. Made on the request's thread, so that the writer only serialises
    /// `data` (keys stay sorted: `data` < `timestamp` < `type`).
    struct Prepared: Sendable {
        let type: WebhookEventType
        let projectID: String
        let time: Timestamp
        let subscribers: [WebhookEndpoint]
        let eventID: String
        let jobIDs: [String]
        let tail: [UInt8]

        init(_ type: WebhookEventType, projectID: String, at time: Timestamp, to subscribers: [WebhookEndpoint]) {
            self.type = type
            self.projectID = projectID
            self.time = time
            self.subscribers = subscribers
            jobIDs = subscribers.map { _ in TimeOrderedID.secure(at: time) }
            // The fact's id is its first job's, without dashes: unique per fact, and one random
            // draw fewer on the request's path.
            eventID = jobIDs.first.map { "msg_" + String(decoding: $0.utf8.filter { $0 != UInt8(ascii: "-") }, as: UTF8.self) } ?? ""
            var tail = Array(#","timestamp":"#.utf8)
            tail.reserveCapacity(64)
            ByteText.appendJSONString(time.iso8601, to: &tail)
            tail += #","type":"#.utf8
            ByteText.appendJSONString(type.rawValue, to: &tail)
            tail.append(UInt8(ascii: "}"))
            self.tail = tail
        }

        static let head = Array(#"{"data":"#.utf8)

        func messages(data: [String: JSONValue]) -> [OutboxMessage] {
            guard !subscribers.isEmpty else { return [] }
            return messages(appendingData: { JSONValue.object(data).append(to: &$0) })
        }

        /// The jobs, `data` written straight into the body by `appendData`.
        func messages(appendingData appendData: (inout [UInt8]) -> Void) -> [OutboxMessage] {
            guard !subscribers.isEmpty else { return [] }
            var body = [UInt8]()
            body.reserveCapacity(512)
            body += Self.head
            appendData(&body)
            body += tail
            let payload = String(decoding: body, as: UTF8.self)
            return zip(subscribers, jobIDs).map { endpoint, id in
                OutboxMessage(id: id, projectID: projectID, kind: "webhook", targetID: endpoint.id, targetURL: endpoint.url,
                              eventID: eventID, eventType: type.rawValue, payload: payload, createdAt: time)
            }
        }
    }

    // MARK: Payloads (outbound.md, "Event types")

    static func install(_ outcome: InstallOutcome, project: Project, networkClickID: NetworkClickID?) -> [String: JSONValue] {
        let install = outcome.install
        let match = install.match
        var attribution: [String: JSONValue] = [
            "attributed": .bool(match.attributed),
            "source": .string(match.attributed ? "link" : "organic"),
            "match_type": .string(match.matchType.rawValue),
            "confidence": .number(match.confidence),
            "matched_factors": .array(match.matchedFactors.map(JSONValue.string)),
            "click_id": optional(match.clickID), "link_id": optional(match.linkID),
            "clicked_at": optional(match.clickedAt?.iso8601),
        ]
        if match.attributed, let link = outcome.link {
            let target = LinkTarget(link: link, template: outcome.template, project: project.settings)
            attribution["short_code"] = .string(link.shortCode)
            attribution["utm"] = .object(target.utm.map.mapValues(JSONValue.string))
        }
        if let network = networkClickID {
            attribution["network_click_id"] = .object(["parameter": .string(network.parameter), "value": .string(network.value)])
        }
        return ["install_id": .string(install.id), "project_id": .string(project.id), "platform": optional(install.platform),
                "reinstall": .bool(install.reinstall), "created_at": .string(install.createdAt.iso8601),
                "attribution": .object(attribution)]
    }

    /// `install.attributed` for an install Apple Ads claimed after it was first answered.
    static func appleAdsAttribution(_ attributed: AppleAdsAttribution, project: Project) -> [String: JSONValue] {
        let install = attributed.install
        let answer = attributed.answer
        let attribution: [String: JSONValue] = [
            "attributed": .bool(true), "source": .string("apple_search_ads"), "match_type": .string(install.match.matchType.rawValue),
            "confidence": .number(install.match.confidence), "matched_factors": .array(install.match.matchedFactors.map(JSONValue.string)),
            "click_id": .null, "link_id": .null, "clicked_at": optional(answer.claimedAt?.iso8601),
            "apple_ads": appleAds(answer),
        ]
        return ["install_id": .string(install.id), "project_id": .string(project.id), "platform": optional(install.platform),
                "reinstall": .bool(install.reinstall), "created_at": .string(install.createdAt.iso8601),
                "attribution": .object(attribution)]
    }

    /// Apple's answer as webhooks carry it (ids as strings).
    static func appleAds(_ answer: AppleAdsAnswer) -> JSONValue {
        .object(["org_id": optional(answer.orgID), "campaign_id": optional(answer.campaignID), "ad_group_id": optional(answer.adGroupID),
                 "keyword_id": optional(answer.keywordID), "ad_id": optional(answer.adID), "conversion_type": optional(answer.conversionType),
                 "claim_type": optional(answer.claimType?.rawValue), "claimed_at": optional(answer.claimedAt?.iso8601),
                 "country_or_region": optional(answer.countryOrRegion), "supply_placement": optional(answer.supplyPlacement),
                 "test": .bool(answer.isTest)])
    }

    /// The event's own fields as JSON (`currency`, `data` when it has some, `name`, `occurred_at`,
    /// `revenue`: sorted, as every other object goes out), written straight into bytes before its
    /// transaction, off the single writer; `appendEvent` adds what the transaction found.
    static func eventFieldsJSON(_ event: EventRecord) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        out += #"{"currency":"#.utf8
        if let currency = event.currency { ByteText.appendJSONString(currency, to: &out) } else { out += "null".utf8 }
        if let value = event.dataValue {
            out += #","data":"#.utf8
            JSONValue.object(value).append(to: &out)
        } else if let text = event.data, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) {
            out += #","data":"#.utf8
            value.append(to: &out)
        }
        out += #","name":"#.utf8
        ByteText.appendJSONString(event.name, to: &out)
        out += #","occurred_at":"#.utf8
        ByteText.appendJSONString(event.occurredAt.iso8601, to: &out)
        out += #","revenue":"#.utf8
        (event.revenue.map(JSONValue.number) ?? .null).append(to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `data` of `event.created`: what the transaction found (the event's id, its install and
    /// user), then the fields serialised before it. The writer only copies bytes.
    static func appendEvent(_ fieldsJSON: [UInt8], stored: StoredEvent, to body: inout [UInt8]) {
        body.append(contentsOf: #"{"event_id":"#.utf8)
        ByteText.appendJSONString(stored.eventID, to: &body)
        body.append(contentsOf: #","install_id":"#.utf8)
        ByteText.appendJSONString(stored.installID, to: &body)
        body.append(contentsOf: #","user_id":"#.utf8)
        if let user = stored.userID { ByteText.appendJSONString(user, to: &body) } else { body.append(contentsOf: "null".utf8) }
        if fieldsJSON.count > 2 {  // `{…}`: its members follow ours
            body.append(UInt8(ascii: ","))
            body.append(contentsOf: fieldsJSON.dropFirst())
        } else {
            body.append(UInt8(ascii: "}"))
        }
    }

    static func payment(_ payment: PaymentRecord, installID: String) -> [String: JSONValue] {
        ["payment_id": .string(payment.paymentID), "install_id": .string(installID), "user_id": .string(payment.userID),
         "amount": .number(payment.amount), "currency": .string(payment.currency), "type": .string(payment.type),
         "status": .string(payment.status)]
    }

    static func user(_ user: UserProfile, installID: String) -> [String: JSONValue] {
        ["user_id": .string(user.id), "install_id": .string(installID), "name": optional(user.name), "email": optional(user.email),
         "phone": optional(user.phone)]
    }

    private static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
}
