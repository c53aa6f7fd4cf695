@testable import App
import Attribution
import Foundation
import JSON
import Store
import Testing

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
        (revenue: 99.99 as Double?, currency: "USD" as String?, data: nil as String?, value: ["product_id": JSONValue.string("12345"), "amount": .number(99.99)] as [String: JSONValue]?),
        (revenue: 100, currency: nil, data: #"{"b":[1,2.5,"x\"y"],"a":{"z":null,"y":true}}"#, value: nil),
        (revenue: nil, currency: "EUR", data: nil, value: nil),
        (revenue: -0.5, currency: "JPY", data: "not json", value: nil),
        (revenue: nil, currency: nil, data: nil, value: ["emoji": .string("🎉 \u{1}\n"), "nested": .array([.object(["k": .bool(false)])])]),
    ])
    func fieldsAreTheGeneralSerialisation(revenue: Double?, currency: String?, data: String?, value: [String: JSONValue]?) {
        let event = EventRecord(projectID: "p", install: .id("i"), name: "purchase \"gold\"", data: data, revenue: revenue,
                                currency: currency, occurredAt: Timestamp(milliseconds: 1_764_000_000_123),
                                receivedAt: Timestamp(milliseconds: 1_764_000_000_456), dataValue: value)
        let written = WebhookEvents.eventFieldsJSON(event)
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: Self.general(event), as: UTF8.self))
    }

    @Test func aFactsWebhookIDIsItsFirstJobsIDWithoutDashes() {
        let endpoints = (0..<2).map { index in
            WebhookEndpoint(id: "e\(index)", projectID: "p", url: "https://example.com/\(index)", events: nil, enabled: true, secret: "whsec_x",
                            previousSecret: nil, previousSecretUntil: nil, disabledReason: nil,
                            createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0))
        }
        let messages = WebhookEvents.messages(.eventCreated, data: ["a": .number(1)], projectID: "p", at: Timestamp(milliseconds: 1_764_000_000_000),
                                              to: endpoints)
        #expect(messages.count == 2 && messages[0].id != messages[1].id)
        #expect(messages[0].eventID == "msg_" + messages[0].id.replacingOccurrences(of: "-", with: ""))
        #expect(messages[1].eventID == messages[0].eventID && messages[0].eventID.count == 36)
        #expect(messages[0].payload == #"{"data":{"a":1},"timestamp":"2025-11-24T16:00:00Z","type":"event.created"}"#)
    }
}
