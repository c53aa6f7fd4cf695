import Attribution
import Cryptography
import Foundation
import JSON
import StoreContracts

/// The webhook jobs of one fact: the Standard Webhooks body `{"type", "timestamp", "data"}`, one
/// job per endpoint that wants the type, all under one event id (the receiver's dedupe key).
enum WebhookEvents {
    static func messages(
        _ type: WebhookEventType, data: [String: JSONValue], projectID: String, at time: Timestamp,
        to subscribers: [WebhookEndpoint]
    ) -> [OutboxMessage] {
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
            eventID = jobIDs.first.map(Self.webhookID) ?? ""
            var tail = Array(#","timestamp":"#.utf8)
            tail.reserveCapacity(64)
            ByteText.appendJSONString(time.iso8601, to: &tail)
            tail += #","type":"#.utf8
            ByteText.appendJSONString(type.rawValue, to: &tail)
            tail.append(UInt8(ascii: "}"))
            self.tail = tail
        }

        static let head = Array(#"{"data":"#.utf8)

        /// `msg_` and the id's 32 hex digits (a generic `filter` over the UTF-8 view cost ~3,000
        /// instructions per event).
        static func webhookID(_ jobID: String) -> String {
            var id = jobID
            return id.withUTF8 { source in
                String(unsafeUninitializedCapacity: 4 + source.count) { target in
                    var count = 0
                    for byte in "msg_".utf8 {
                        target[count] = byte
                        count += 1
                    }
                    for byte in source where byte != UInt8(ascii: "-") {
                        target[count] = byte
                        count += 1
                    }
                    return count
                }
            }
        }

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
                OutboxMessage(
                    id: id, projectID: projectID, kind: "webhook", targetID: endpoint.id, targetURL: endpoint.url,
                    eventID: eventID, eventType: type.rawValue, payload: payload, createdAt: time)
            }
        }
    }

    // MARK: Payloads (outbound.md, "Event types")

    /// `data` of `install.created`, written straight into the job's body on the writer (keys in
    /// sorted order, as `JSONValue` writes objects: a dictionary built and sorted per install
    /// cost ~26,000 instructions of an all-new install's ~470,000).
    static func appendInstall(_ outcome: InstallOutcome, project: Project, networkClickID: NetworkClickID?, to out: inout [UInt8]) {
        typealias F = InstallFragments
        let install = outcome.install
        let match = install.match
        func text(_ value: String?) {
            if let value { ByteText.appendJSONString(value, to: &out) } else { out += F.null }
        }
        out += F.attributed
        out += match.attributed ? F.true : F.false
        out += F.clickID
        text(match.clickID)
        out += F.clickedAt
        text(match.clickedAt?.iso8601)
        out += F.confidence
        JSONValue.number(match.confidence).append(to: &out)
        out += F.linkID
        text(match.linkID)
        out += F.matchType
        text(match.matchType.rawValue)
        out += F.matchedFactors
        JSONValue.array(match.matchedFactors.map(JSONValue.string)).append(to: &out)
        if let network = networkClickID {
            out += F.networkClickID
            text(network.parameter)
            out += F.value
            text(network.value)
            out.append(UInt8(ascii: "}"))
        }
        let target = match.attributed ? outcome.link.map { LinkTarget(link: $0, template: outcome.template, project: project.settings) } : nil
        if let target {
            out += F.shortCode
            text(target.link.shortCode)
        }
        out += F.source
        out += match.attributed ? F.link : F.organic
        if let target {
            out += F.utm
            JSONValue.object(target.utm.map.mapValues(JSONValue.string)).append(to: &out)
        }
        out.append(UInt8(ascii: "}"))
        if let consent = outcome.consent {
            out += F.consent
            consentJSON(consent).append(to: &out)
        }
        out += F.createdAt
        text(install.createdAt.iso8601)
        out += F.installID
        text(install.id)
        out += F.platform
        text(install.platform)
        out += F.projectID
        text(project.id)
        // Only when there are any, so that an install nothing was said of is told as before.
        if !match.flags.isEmpty {
            out += F.qualityFlags
            JSONValue.array(match.flags.map { .string($0.rawValue) }).append(to: &out)
        }
        out += F.reinstall
        out += install.reinstall ? F.true : F.false
        if !match.rejectedReasons.isEmpty {
            out += F.rejectedReasons
            JSONValue.array(match.rejectedReasons.map { .string($0.rawValue) }).append(to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The constant parts of `install.created`'s `data`, in key order, made once.
    private enum InstallFragments {
        static let attributed = Array(#"{"attribution":{"attributed":"#.utf8)
        static let clickID = Array(#","click_id":"#.utf8)
        static let clickedAt = Array(#","clicked_at":"#.utf8)
        static let confidence = Array(#","confidence":"#.utf8)
        static let linkID = Array(#","link_id":"#.utf8)
        static let matchType = Array(#","match_type":"#.utf8)
        static let matchedFactors = Array(#","matched_factors":"#.utf8)
        static let networkClickID = Array(#","network_click_id":{"parameter":"#.utf8)
        static let value = Array(#","value":"#.utf8)
        static let shortCode = Array(#","short_code":"#.utf8)
        static let source = Array(#","source":"#.utf8)
        static let utm = Array(#","utm":"#.utf8)
        static let consent = Array(#","consent":"#.utf8)
        static let createdAt = Array(#","created_at":"#.utf8)
        static let installID = Array(#","install_id":"#.utf8)
        static let platform = Array(#","platform":"#.utf8)
        static let projectID = Array(#","project_id":"#.utf8)
        static let reinstall = Array(#","reinstall":"#.utf8)
        static let qualityFlags = Array(#","quality_flags":"#.utf8)
        static let rejectedReasons = Array(#","rejected_reasons":"#.utf8)
        static let link = Array(#""link""#.utf8)
        static let organic = Array(#""organic""#.utf8)
        static let `true` = Array("true".utf8)
        static let `false` = Array("false".utf8)
        static let null = Array("null".utf8)
    }

    /// `install.rejected`: the install, why the click that would have won it was refused, and
    /// what it was attributed to instead (nothing, when it stayed organic).
    static func rejection(_ outcome: InstallOutcome, project: Project) -> [String: JSONValue] {
        let install = outcome.install
        let match = install.match
        return [
            "install_id": .string(install.id), "project_id": .string(project.id), "platform": optional(install.platform),
            "created_at": .string(install.createdAt.iso8601), "reasons": .array(match.rejectedReasons.map { .string($0.rawValue) }),
            "address_class": optional(install.addressClass?.rawValue),
            "attribution": .object([
                "attributed": .bool(match.attributed), "match_type": .string(match.matchType.rawValue),
                "click_id": optional(match.clickID), "link_id": optional(match.linkID),
            ]),
        ]
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
        return [
            "install_id": .string(install.id), "project_id": .string(project.id), "platform": optional(install.platform),
            "reinstall": .bool(install.reinstall), "created_at": .string(install.createdAt.iso8601),
            "attribution": .object(attribution),
        ]
    }

    /// An install an ad platform's claim took (docs/ad-platforms/claims.md).
    static func adPlatformAttribution(_ attributed: AdClaimAttribution, project: Project) -> [String: JSONValue] {
        let install = attributed.install
        let claim = attributed.claim
        let attribution: [String: JSONValue] = [
            "attributed": .bool(true), "source": .string(claim.source.rawValue), "match_type": .string(install.match.matchType.rawValue),
            "confidence": .number(install.match.confidence), "matched_factors": .array(install.match.matchedFactors.map(JSONValue.string)),
            "click_id": .null, "link_id": .null, "clicked_at": optional(claim.engagedAt?.iso8601),
            "ad_platform": adPlatformClaim(claim),
        ]
        return [
            "install_id": .string(install.id), "project_id": .string(project.id), "platform": optional(install.platform),
            "reinstall": .bool(install.reinstall), "created_at": .string(install.createdAt.iso8601),
            "attribution": .object(attribution),
        ]
    }

    /// Consent as webhooks carry it: every signal, null where unknown.
    static func consentJSON(_ consent: Consent) -> JSONValue {
        func signal(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
        return .object([
            "eea": signal(consent.eea), "ad_user_data": signal(consent.adUserData), "ad_personalization": signal(consent.adPersonalization),
            "tcf_string": optional(consent.tcfString), "att_status": optional(consent.attStatus?.rawValue),
        ])
    }

    /// A platform's claim as webhooks and the admin API show it.
    static func adPlatformClaim(_ claim: AdPlatformClaim) -> JSONValue {
        .object([
            "platform": .string(claim.source.platform.rawValue), "source": .string(claim.source.rawValue),
            "campaign_id": optional(claim.campaignID), "campaign_name": optional(claim.campaignName),
            "ad_group_id": optional(claim.adGroupID), "ad_group_name": optional(claim.adGroupName), "ad_id": optional(claim.adID),
            "interaction": optional(claim.interaction), "engaged_at": optional(claim.engagedAt?.iso8601),
            "ad_event_id": optional(claim.adEventID),
        ])
    }

    /// Apple's answer as webhooks carry it (ids as strings).
    static func appleAds(_ answer: AppleAdsAnswer) -> JSONValue {
        .object([
            "org_id": optional(answer.orgID), "campaign_id": optional(answer.campaignID), "ad_group_id": optional(answer.adGroupID),
            "keyword_id": optional(answer.keywordID), "ad_id": optional(answer.adID), "conversion_type": optional(answer.conversionType),
            "claim_type": optional(answer.claimType?.rawValue), "claimed_at": optional(answer.claimedAt?.iso8601),
            "country_or_region": optional(answer.countryOrRegion), "supply_placement": optional(answer.supplyPlacement),
            "test": .bool(answer.isTest),
        ])
    }

    /// The event's own fields as JSON (`currency`, `data` when it has some, `name`, `occurred_at`,
    /// `revenue`: sorted, as every other object goes out), written straight into bytes before its
    /// transaction, off the single writer; `appendEvent` adds what the transaction found.
    static func eventFieldsJSON(_ event: EventRecord) -> [UInt8] {
        eventFieldsJSON(name: event.name, currency: event.currency, revenue: event.revenue, occurredAt: event.occurredAt) { out in
            if event.dataValue != nil, let text = event.data {
                // `data` is `dataValue` serialised already, for the event's row: its bytes as they are.
                out += EventFragments.data
                out += text.utf8
            } else if let value = event.dataValue {
                out += EventFragments.data
                JSONValue.object(value).append(to: &out)
            } else if let text = event.data, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) {
                out += EventFragments.data
                value.append(to: &out)
            }
        }
    }

    /// The same fields of an event read back from its row, whose `data` both APIs stored as
    /// their `JSONValue` serialised it: its bytes as they are.
    static func eventFieldsJSON(_ event: LoggedEvent) -> [UInt8] {
        eventFieldsJSON(name: event.name, currency: event.currency, revenue: event.revenue, occurredAt: event.occurredAt) { out in
            if let text = event.data {
                out += EventFragments.data
                out += text.utf8
            }
        }
    }

    private static func eventFieldsJSON(
        name: String, currency: String?, revenue: Double?, occurredAt: Timestamp,
        appendData: (inout [UInt8]) -> Void
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        typealias F = EventFragments
        out += F.currency
        if let currency { ByteText.appendJSONString(currency, to: &out) } else { out += InstallFragments.null }
        appendData(&out)
        out += F.name
        ByteText.appendJSONString(name, to: &out)
        out += F.occurredAt
        ByteText.appendJSONString(occurredAt.iso8601, to: &out)
        out += F.revenue
        (revenue.map(JSONValue.number) ?? .null).append(to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The constant parts of `event.created`'s `data`, made once.
    private enum EventFragments {
        static let currency = Array(#"{"currency":"#.utf8)
        static let data = Array(#","data":"#.utf8)
        static let name = Array(#","name":"#.utf8)
        static let occurredAt = Array(#","occurred_at":"#.utf8)
        static let revenue = Array(#","revenue":"#.utf8)
        static let eventID = Array(#"{"event_id":"#.utf8)
        static let userID = Array(#","user_id":"#.utf8)
    }

    /// `data` of `event.created`: what the transaction found (the event's id, its install and
    /// user), then the fields serialised before it. The writer only copies bytes.
    static func appendEvent(_ fieldsJSON: [UInt8], stored: StoredEvent, to body: inout [UInt8]) {
        body += EventFragments.eventID
        ByteText.appendJSONString(stored.eventID, to: &body)
        body += InstallFragments.installID
        ByteText.appendJSONString(stored.installID, to: &body)
        body += EventFragments.userID
        if let user = stored.userID { ByteText.appendJSONString(user, to: &body) } else { body += InstallFragments.null }
        if fieldsJSON.count > 2 {  // `{…}`: its members follow ours
            body.append(UInt8(ascii: ","))
            body.append(contentsOf: fieldsJSON.dropFirst())
        } else {
            body.append(UInt8(ascii: "}"))
        }
    }

    static func payment(_ payment: PaymentRecord, installID: String) -> [String: JSONValue] {
        [
            "payment_id": .string(payment.paymentID), "install_id": .string(installID), "user_id": .string(payment.userID),
            "amount": .number(payment.amount), "currency": .string(payment.currency), "type": .string(payment.type),
            "status": .string(payment.status),
        ]
    }

    static func user(_ user: UserProfile, installID: String) -> [String: JSONValue] {
        [
            "user_id": .string(user.id), "install_id": .string(installID), "name": optional(user.name), "email": optional(user.email),
            "phone": optional(user.phone),
        ]
    }

    private static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
}
