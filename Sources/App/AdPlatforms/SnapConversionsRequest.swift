import Attribution
import JSON
import StoreContracts

/// Snap's Conversions API v3 (docs/ad-platforms/snap.md): `v3/{snap_app_id}/events`, `app_data`
/// as Meta's, events at most 37 days old; `event_id` deduplicates (sent as `client_dedup_id` too,
/// the name Snap's earlier API read).
enum SnapConversionsRequest {
    static let maximumAgeSeconds: Int64 = 37 * 86_400

    static func request(_ input: AdPlatformDeliveryInput, baseURL: String, now: Timestamp) -> Result<OutboundRequest, AdPlatformRefusal> {
        let connection = input.connection
        guard let app = connection.settings["snap_app_id"], let token = connection.secrets["access_token"] else {
            return .failure(.init(reason: "the Snap connection needs snap_app_id and access_token", counted: "not_configured"))
        }
        guard let name = connection.eventMapping.eventName(for: input.conversion, on: .snap) else {
            return .failure(.init(reason: "not sent: Snap takes only its standard events, and none is mapped to this one", counted: "not_mapped"))
        }
        guard now.milliseconds - input.conversion.occurredAt <= maximumAgeSeconds * 1000 else {
            return .failure(.init(reason: "refused: Snap takes events at most 37 days old", counted: "too_old"))
        }
        let consent = input.consent
        var user: [String: JSONValue] = [:]
        if consent.allowsIdentifiers {
            if let ip = input.ip { user["client_ip_address"] = .string(ip) }
            if let agent = input.deviceUserAgent { user["client_user_agent"] = .string(agent) }
            if let madid = input.advertisingID { user["madid"] = .string(madid) }
            if let click = input.clickID(["sccid", "sc_click_id"]) { user["sc_click_id"] = .string(click) }
        }
        let key = input.conversion.deduplicationKey
        var event: [String: JSONValue] = [
            "event_name": .string(name), "action_source": .string("app"), "event_time": .number(Double(input.conversion.occurredAt / 1000)),
            "event_id": .string(key), "client_dedup_id": .string(key), "user_data": .object(user),
            "app_data": .object([
                "app_id": .string(connection.settings["app_store_id"] ?? connection.settings["app_package"] ?? app),
                "advertiser_tracking_enabled": .number(input.advertisingID != nil ? 1 : 0),
                "extinfo": .array(ExtendedDeviceInfo.values(input)),
            ]),
        ]
        if let revenue = input.conversion.revenue, revenue.isFinite {
            var custom: [String: JSONValue] = ["value": .number(revenue)]
            if let currency = input.conversion.currency { custom["currency"] = .string(currency) }
            event["custom_data"] = .object(custom)
        }
        // Snap's test mode is its validation endpoint: checked, never counted.
        let path = "v3/" + QueryText.encodePathSegment(app) + (input.isTest ? "/events/validate?" : "/events?")
        return .success(
            OutboundRequest(
                method: "POST", url: baseURL + path + QueryText.encode([("access_token", token)]),
                headers: [("content-type", "application/json"), ("user-agent", input.userAgent)],
                body: JSONValue.object(["data": .array([.object(event)])]).serialized()))
    }
}
