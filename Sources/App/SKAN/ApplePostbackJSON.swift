public import Attribution
public import JSON

/// A stored copy as the admin API lists it and the `skan.postback.received` webhook carries it:
/// Apple's field names, our id and arrival, and what the values stand for under the schema.
public enum ApplePostbackJSON {
    public static func object(_ stored: StoredApplePostback, decoded: (fine: SKANDecodedValue?, coarse: SKANDecodedValue?)) -> [String: JSONValue] {
        let postback = stored.postback
        var object: [String: JSONValue] = [
            "id": .string(stored.id), "framework": .string(postback.framework.rawValue), "key_id": .string(postback.keyID),
            "development": .bool(postback.isDevelopment), "postback_id": .string(postback.dedupeKey),
            "ad_network_id": .string(postback.adNetworkID), "app_id": .number(Double(postback.appID)),
            "conversion_type": .string(postback.conversionType), "redownload": .bool(postback.redownload),
            "postback_sequence_index": .number(Double(postback.sequenceIndex)), "received_at": .string(stored.receivedAt.iso8601),
        ]
        func set(_ key: String, _ value: JSONValue?) { if let value { object[key] = value } }
        set("version", postback.version.map(JSONValue.string))
        set("source_identifier", postback.sourceIdentifier.map(JSONValue.string))
        set("campaign_id", postback.campaignID.map { .number(Double($0)) })
        set("source_app_id", postback.sourceAppID.map { .number(Double($0)) })
        set("source_domain", postback.sourceDomain.map(JSONValue.string))
        set("fidelity_type", postback.fidelityType.map { .number(Double($0)) })
        set("ad_interaction_type", postback.interactionType.map(JSONValue.string))
        set("impression_type", postback.impressionType.map(JSONValue.string))
        set("did_win", postback.didWin.map(JSONValue.bool))
        set("conversion_value", postback.fineValue.map { .number(Double($0)) })
        set("coarse_conversion_value", postback.coarseValue.map { .string($0.rawValue) })
        set("country_code", postback.country.map(JSONValue.string))
        set("marketplace", postback.marketplace.map(JSONValue.string))
        set("publisher_item_id", postback.publisherItemID.map { .number(Double($0)) })
        var decodedObject: [String: JSONValue] = [:]
        if let fine = decoded.fine { decodedObject["conversion_value"] = value(fine) }
        if let coarse = decoded.coarse { decodedObject["coarse_conversion_value"] = value(coarse) }
        if !decodedObject.isEmpty { object["decoded"] = .object(decodedObject) }
        return object
    }

    public static func value(_ decoded: SKANDecodedValue) -> JSONValue {
        var object: [String: JSONValue] = [
            "events": .array(decoded.events.map(JSONValue.string)), "explanation": .array(decoded.explanation.map(JSONValue.string)),
        ]
        if let atLeast = decoded.revenueAtLeast { object["revenue_at_least"] = .number(atLeast) }
        if let below = decoded.revenueBelow { object["revenue_below"] = .number(below) }
        return .object(object)
    }
}
