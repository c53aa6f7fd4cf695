import Attribution
import Foundation
import JSON
import StoreContracts
import Testing

@testable import App
@testable import Store

/// `event.created`'s fields are written straight into bytes on the request path: the same bytes
/// as the object serialised the general way (keys sorted, whole numbers as integers, `data` only
/// when the event has some), for every shape an event comes in.
@Suite struct WebhookPayloadTests {
    static func general(_ event: EventRecord) -> [UInt8] {
        var fields: [String: JSONValue] = [
            "name": .string(event.name), "occurred_at": .string(event.occurredAt.iso8601),
            "revenue": event.revenue.map(JSONValue.number) ?? .null, "currency": event.currency.map(JSONValue.string) ?? .null,
        ]
        if let value = event.dataValue {
            fields["data"] = .object(value)
        } else if let text = event.data, let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) {
            fields["data"] = value
        }
        return JSONValue.object(fields).serialized()
    }

    @Test(arguments: [
        (
            revenue: 99.99 as Double?, currency: "USD" as String?, data: nil as String?,
            value: ["product_id": JSONValue.string("12345"), "amount": .number(99.99)] as [String: JSONValue]?
        ),
        (revenue: 100, currency: nil, data: #"{"b":[1,2.5,"x\"y"],"a":{"z":null,"y":true}}"#, value: nil),
        (revenue: nil, currency: "EUR", data: nil, value: nil),
        (revenue: -0.5, currency: "JPY", data: "not json", value: nil),
        (revenue: nil, currency: nil, data: nil, value: ["emoji": .string("🎉 \u{1}\n"), "nested": .array([.object(["k": .bool(false)])])]),
        // As the APIs make them: `data` is the value serialised (its bytes are copied).
        (revenue: 5, currency: "USD", data: #"{"amount":5,"sku":"a\"b"}"#, value: ["sku": .string("a\"b"), "amount": .number(5)]),
    ])
    func fieldsAreTheGeneralSerialisation(revenue: Double?, currency: String?, data: String?, value: [String: JSONValue]?) {
        let event = EventRecord(
            projectID: "p", install: .id("i"), name: "purchase \"gold\"", data: data, revenue: revenue,
            currency: currency, occurredAt: Timestamp(milliseconds: 1_764_000_000_123),
            receivedAt: Timestamp(milliseconds: 1_764_000_000_456), dataValue: value)
        if let value, let data { #expect(String(decoding: JSONValue.object(value).serialized(), as: UTF8.self) == data) }
        let written = WebhookEvents.eventFieldsJSON(event)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: Self.general(event), as: UTF8.self))
    }

    /// Where the events are the outbox's log, the worker writes the fields from the event's row:
    /// the bytes the request would have written, for every shape the APIs store.
    @Test(arguments: [
        (
            revenue: 99.99 as Double?, currency: "USD" as String?,
            value: ["product_id": JSONValue.string("12345"), "amount": .number(99.99)] as [String: JSONValue]?
        ),
        (revenue: nil, currency: nil, value: nil),
        (revenue: -0.5, currency: "JPY", value: [:]),
        (
            revenue: 5, currency: "USD",
            value: ["emoji": .string("🎉 \u{1}\n"), "sku": .string("a\"b"), "nested": .array([.object(["k": .bool(false)]), .null])]
        ),
    ])
    func fieldsFromTheEventsRowAreTheRequests(revenue: Double?, currency: String?, value: [String: JSONValue]?) {
        let data = value.map { String(decoding: JSONValue.object($0).serialized(), as: UTF8.self) }
        let event = EventRecord(
            projectID: "p", install: .id("i"), name: "purchase \"gold\"", data: data, revenue: revenue,
            currency: currency, occurredAt: Timestamp(milliseconds: 1_764_000_000_123),
            receivedAt: Timestamp(milliseconds: 1_764_000_000_456), dataValue: value)
        let row = LoggedEvent(
            id: "e", projectID: "p", installID: "i", userID: nil, name: event.name, data: data, revenue: revenue,
            currency: currency, occurredAt: event.occurredAt, receivedAt: event.receivedAt)
        #expect(
            String(decoding: WebhookEvents.eventFieldsJSON(row), as: UTF8.self)
                == String(decoding: WebhookEvents.eventFieldsJSON(event), as: UTF8.self))
    }

    @Test func aFactsWebhookIDIsItsFirstJobsIDWithoutDashes() {
        let endpoints = (0..<2).map { index in
            WebhookEndpoint(
                id: "e\(index)", projectID: "p", url: "https://example.com/\(index)", events: nil, enabled: true, secret: "whsec_x",
                previousSecret: nil, previousSecretUntil: nil, disabledReason: nil,
                createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0))
        }
        let messages = WebhookEvents.messages(
            .eventCreated, data: ["a": .number(1)], projectID: "p", at: Timestamp(milliseconds: 1_764_000_000_000),
            to: endpoints)
        #expect(messages.count == 2 && messages[0].id != messages[1].id)
        #expect(messages[0].eventID == "msg_" + messages[0].id.replacingOccurrences(of: "-", with: ""))
        #expect(messages[1].eventID == messages[0].eventID && messages[0].eventID.count == 36)
        #expect(messages[0].payload == #"{"data":{"a":1},"timestamp":"2025-11-24T16:00:00Z","type":"event.created"}"#)
    }
}

/// `install.created`'s `data`, written straight into bytes on the writer: the same bytes as the
/// object built and serialised the general way, organic or attributed, with or without UTM
/// parameters and a network click id.
@Suite struct InstallPayloadTests {
    static let project = Project(
        id: "p-1", name: "Shop", settings: ProjectSettings(), createdAt: Timestamp(milliseconds: 0),
        updatedAt: Timestamp(milliseconds: 0))

    /// The payload as a dictionary, the way it was built before it was written directly.
    static func general(_ outcome: InstallOutcome, networkClickID: NetworkClickID?) -> [UInt8] {
        let install = outcome.install
        let match = install.match
        func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
        var attribution: [String: JSONValue] = [
            "attributed": .bool(match.attributed), "source": .string(match.attributed ? "link" : "organic"),
            "match_type": .string(match.matchType.rawValue), "confidence": .number(match.confidence),
            "matched_factors": .array(match.matchedFactors.map(JSONValue.string)),
            "click_id": optional(match.clickID), "link_id": optional(match.linkID), "clicked_at": optional(match.clickedAt?.iso8601),
        ]
        if match.attributed, let link = outcome.link {
            let target = LinkTarget(link: link, template: outcome.template, project: Self.project.settings)
            attribution["short_code"] = .string(link.shortCode)
            attribution["utm"] = .object(target.utm.map.mapValues(JSONValue.string))
        }
        if let network = networkClickID {
            attribution["network_click_id"] = .object(["parameter": .string(network.parameter), "value": .string(network.value)])
        }
        return JSONValue.object([
            "install_id": .string(install.id), "project_id": .string(Self.project.id), "platform": optional(install.platform),
            "reinstall": .bool(install.reinstall), "created_at": .string(install.createdAt.iso8601), "attribution": .object(attribution),
        ]).serialized()
    }

    static func outcome(_ match: MatchResult, link: Link?, platform: String?, reinstall: Bool) -> InstallOutcome {
        var outcome = InstallOutcome(
            install: StoredInstall(
                id: "i-\"1\"", projectID: project.id, match: match, reinstall: reinstall,
                createdAt: Timestamp(milliseconds: 1_764_000_000_250), platform: platform),
            isNew: true)
        outcome.link = link
        return outcome
    }

    @Test func everyShapeIsTheGeneralSerialisation() {
        let link = Link(
            id: "l-1", projectID: Self.project.id, shortCode: "summer", utm: UTM(source: "google", medium: "cpc", campaign: "spring \"sale\""),
            createdAt: Timestamp(milliseconds: 0))
        let attributed = MatchResult(
            matchType: .probabilistic, attributed: true, confidence: 0.85, matchedFactors: ["ip", "user_agent"],
            clickID: "c-1", linkID: "l-1", clickedAt: Timestamp(milliseconds: 1_763_999_000_000))
        let deterministic = MatchResult(
            matchType: .deterministic, attributed: true, confidence: 1, matchedFactors: ["click_id"],
            clickID: "c-2", linkID: "l-1", clickedAt: Timestamp(milliseconds: 1_763_999_500_123))
        let cases: [(InstallOutcome, NetworkClickID?)] = [
            (Self.outcome(.organic, link: nil, platform: "ios", reinstall: false), nil),
            (Self.outcome(.organic, link: nil, platform: nil, reinstall: true), nil),
            (Self.outcome(attributed, link: link, platform: "android", reinstall: false), NetworkClickID(parameter: "gclid", value: "Cj0\u{1}x")),
            (Self.outcome(deterministic, link: link, platform: "ios", reinstall: false), nil),
            (Self.outcome(attributed, link: nil, platform: "ios", reinstall: false), nil),  // its link deleted since
        ]
        for (outcome, network) in cases {
            var written: [UInt8] = []
            WebhookEvents.appendInstall(outcome, project: Self.project, networkClickID: network, to: &written)
            #expect(String(decoding: written, as: UTF8.self) == String(decoding: Self.general(outcome, networkClickID: network), as: UTF8.self))
        }
    }
}
