import Attribution
import Foundation
import JSON
import StoreContracts

/// TikTok's Events API for an app event source (docs/ad-platforms/tiktok.md): `event/track/` with
/// the `Access-Token` header; `event_id` deduplicates. TikTok answers HTTP 200 with its own `code`
/// (0 is success).
enum TikTokEventsRequest {
    static let path = "open_api/v1.3/event/track/"

    static func request(_ input: AdPlatformDeliveryInput, baseURL: String) -> Result<OutboundRequest, AdPlatformRefusal> {
        let connection = input.connection
        guard let source = connection.settings["event_source_id"], let token = connection.secrets["access_token"] else {
            return .failure(.init(reason: "the TikTok connection needs event_source_id and access_token", counted: "not_configured"))
        }
        guard let name = connection.eventMapping.eventName(for: input.conversion, on: .tiktok) else {
            return .failure(.init(reason: "not sent: the event mapping leaves it out", counted: "not_mapped"))
        }
        let consent = input.consent
        var user: [String: JSONValue] = [:]
        if consent.allowsIdentifiers {
            if let ip = input.ip { user["ip"] = .string(ip) }
            if let agent = input.deviceUserAgent { user["user_agent"] = .string(agent) }
            if let id = input.advertisingID { user[input.isIOS ? "idfa" : "gaid"] = .string(id) }
            if input.isIOS, let idfv = input.facts.install.idfv { user["idfv"] = .string(idfv) }
            if let ttclid = input.clickID(["ttclid"]) { user["ttclid"] = .string(ttclid) }
        }
        if input.isIOS { user["att_status"] = .string(consent.attStatus?.tiktokValue ?? "NOT_DETERMINED") }
        var event: [String: JSONValue] = [
            "event": .string(name), "event_time": .number(Double(input.conversion.occurredAt / 1000)),
            "event_id": .string(input.conversion.deduplicationKey), "user": .object(user),
            "app": .object(["app_id": .string(connection.settings["app_id"] ?? source), "app_version": .string(input.facts.install.appVersion ?? "")]
            ),
            "limited_data_use": .bool(consent.limitedDataUse),
        ]
        if let revenue = input.conversion.revenue, revenue.isFinite {
            var properties: [String: JSONValue] = ["value": .number(revenue)]
            if let currency = input.conversion.currency { properties["currency"] = .string(currency) }
            event["properties"] = .object(properties)
        }
        var body: [String: JSONValue] = [
            "event_source": .string("app"), "event_source_id": .string(source), "data": .array([.object(event)]),
        ]
        if input.isTest, let code = connection.settings["test_event_code"] { body["test_event_code"] = .string(code) }
        return .success(
            OutboundRequest(
                method: "POST", url: baseURL + path,
                headers: [("content-type", "application/json"), ("access-token", token), ("user-agent", input.userAgent)],
                body: JSONValue.object(body).serialized()))
    }

    /// TikTok's `code`: nil when the answer is not TikTok's shape.
    static func code(ofAnswer body: String) -> (code: Int, message: String)? {
        guard case .object(let answer)? = try? JSONDecoder().decode(JSONValue.self, from: Data(body.utf8)),
            case .number(let code)? = answer["code"]
        else { return nil }
        if case .string(let message)? = answer["message"] { return (Int(code), message) }
        return (Int(code), "")
    }

    /// Codes worth asking again: rate limits and TikTok's own faults.
    static func isTransient(_ code: Int) -> Bool { code == 40100 || code == 40016 || code >= 50000 }
}
