import Attribution
import JSON
import StoreContracts

/// Meta's Conversions API for app events (docs/ad-platforms/meta.md): one event per request to
/// `{version}/{dataset_id}/events`, `action_source: app`, the app's `app_data`, and `event_id`
/// so that a retry is one event at Meta.
enum MetaConversionsRequest {
    static func request(_ input: AdPlatformDeliveryInput, baseURL: String) -> Result<OutboundRequest, AdPlatformRefusal> {
        let connection = input.connection
        guard let dataset = connection.settings["dataset_id"], let token = connection.secrets["access_token"] else {
            return .failure(.init(reason: "the Meta connection needs dataset_id and access_token", counted: "not_configured"))
        }
        guard let name = connection.eventMapping.eventName(for: input.conversion, on: .meta) else {
            return .failure(.init(reason: "not sent: the event mapping leaves it out", counted: "not_mapped"))
        }
        let consent = input.consent
        var user: [String: JSONValue] = [:]
        if consent.allowsIdentifiers {
            user["anon_id"] = .string(input.facts.install.installID)
            if let ip = input.ip { user["client_ip_address"] = .string(ip) }
            if let agent = input.deviceUserAgent { user["client_user_agent"] = .string(agent) }
            if let madid = input.advertisingID { user["madid"] = .string(madid) }
        }
        var app: [String: JSONValue] = [
            "advertiser_tracking_enabled": .number(input.isIOS ? (input.advertisingID != nil ? 1 : 0) : (consent.allowsIdentifiers ? 1 : 0)),
            "application_tracking_enabled": .number(consent.allowsIdentifiers ? 1 : 0),
            "extinfo": .array(ExtendedDeviceInfo.values(input)),
        ]
        let signals = input.facts.signals
        if consent.allowsIdentifiers, let campaigns = signals.metaCampaignIDs,
            input.conversion.occurredAt - input.facts.createdAt.milliseconds <= 7 * 86_400_000
        {
            app["campaign_ids"] = .string(campaigns)
        }
        if consent.allowsIdentifiers, let referrer = signals.metaInstallReferrer, input.isAndroid { app["install_referrer"] = .string(referrer) }
        var event: [String: JSONValue] = [
            "event_name": .string(name), "event_time": .number(Double(input.conversion.occurredAt / 1000)), "action_source": .string("app"),
            "event_id": .string(input.conversion.deduplicationKey), "user_data": .object(user), "app_data": .object(app),
        ]
        if let revenue = input.conversion.revenue, revenue.isFinite {
            var custom: [String: JSONValue] = ["value": .number(revenue)]
            if let currency = input.conversion.currency { custom["currency"] = .string(currency) }
            event["custom_data"] = .object(custom)
        }
        if consent.limitedDataUse || connection.settings["limited_data_use"] == "true" {
            // Meta works out the user's region itself (country and state 0).
            event["data_processing_options"] = .array([.string("LDU")])
            event["data_processing_options_country"] = .number(0)
            event["data_processing_options_state"] = .number(0)
        }
        var body: [String: JSONValue] = ["data": .array([.object(event)])]
        if input.isTest, let code = connection.settings["test_event_code"] { body["test_event_code"] = .string(code) }
        let url =
            baseURL + AdPlatformSettings.metaGraphVersion + "/" + QueryText.encodePathSegment(dataset) + "/events?"
            + QueryText.encode([("access_token", token)])
        return .success(
            OutboundRequest(
                method: "POST", url: url, headers: [("content-type", "application/json"), ("user-agent", input.userAgent)],
                body: JSONValue.object(body).serialized()))
    }
}
