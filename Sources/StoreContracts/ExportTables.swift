/// The tables of the raw export (docs/export.md) and their columns, defined once: the store
/// selects these columns, the export writes them in this order under these names, and the
/// documentation's schema is this list. Adding a column at the end keeps files of the same
/// `schemaVersion` loadable; any other change raises it.
public enum ExportTable: String, CaseIterable, Sendable, Codable {
    case clicks, installs, events, payments
    case verifiedRevenue = "verified_revenue"
    case cost
    case skanPostbacks = "skan_postbacks"
    case appleAdsClaims = "apple_ads_claims"
    case adPlatformClaims = "ad_platform_claims"
    case rejectedInstalls = "rejected_installs"
    case erasures

    public static let schemaVersion = 1

    public var columns: [ExportColumn] {
        switch self {
        case .clicks:
            [
                .text("project_id"), .text("click_id"), .text("link_id"), .text("source"), .time("created_at"), .text("ip"),
                .text("ip_class"), .text("country"), .text("user_agent"), .text("accept_language"), .text("referer"), .json("query"),
                .text("utm_source"), .text("utm_medium"), .text("utm_campaign"), .text("utm_term"), .text("utm_content"),
                .text("platform"), .text("os_version"), .text("device_class"), .boolean("is_bot"), .real("screen_width"),
                .real("screen_height"), .real("pixel_ratio"), .text("timezone"), .integer("utc_offset_min"), .json("languages"),
                .text("idfv"), .text("advertising_id"), .text("network_click_id"), .text("network_click_parameter"), .text("variant"),
                .text("install_id"), .time("claimed_at"),
            ]
        case .installs:
            [
                .text("project_id"), .text("install_id", sql: "id"), .time("created_at"), .text("api"), .text("platform"),
                .text("os_version"), .text("device_model"), .text("device_class"), .text("app_version"), .text("install_instance_id"),
                .text("device_id"), .text("idfv"), .text("advertising_id"), .text("ip"), .text("ip_class"), .text("country"),
                .text("user_agent"), .text("timezone"), .integer("utc_offset_min"), .json("languages"), .real("screen_width"),
                .real("screen_height"), .boolean("attributed"), .text("match_type"), .real("confidence"), .json("matched_factors"),
                .text("click_id"), .text("link_id"), .time("clicked_at"), .text("variant"), .boolean("reinstall"), .text("user_id"),
                .boolean("signed_up"), .json("consent"), .json("rejected_reasons"), .text("rejected_click_id"), .json("quality_flags"),
                .boolean("is_test"),
            ]
        case .events:
            [
                .text("project_id"), .text("event_id", sql: "id"), .text("install_id"), .text("name"), .text("client_event_id"),
                .text("user_id"), .json("data"), .real("revenue"), .text("currency"), .time("occurred_at"), .time("received_at"),
                .time("charted_at"), .text("recorded_by"),
            ]
        case .payments:
            [
                .text("project_id"), .text("id"), .text("payment_id"), .text("install_id"), .text("user_id"), .real("amount"),
                .text("currency"), .text("type"), .text("status"), .json("data"), .time("created_at"), .time("removed_at"),
                .text("verified_by"),
            ]
        case .verifiedRevenue:
            [
                .text("project_id"), .text("source"), .text("notification_id"), .text("type"), .text("transaction_id"),
                .text("install_id"), .text("outcome"), .time("received_at"),
            ]
        case .cost:
            [
                .text("project_id"), .text("day"), .text("network"), .text("campaign_id"), .text("campaign_name"), .text("adgroup_id"),
                .text("ad_id"), .integer("spend_micros"), .text("currency"), .integer("impressions"), .integer("clicks"), .text("source"),
                .time("updated_at"),
            ]
        case .skanPostbacks:
            [
                .text("project_id"), .text("id"), .text("framework"), .text("version"), .boolean("development"), .text("ad_network_id"),
                .text("source_identifier"), .integer("campaign_id"), .integer("app_id"), .integer("source_app_id"),
                .text("source_domain"), .integer("fidelity_type"), .text("interaction_type"), .text("impression_type"),
                .text("conversion_type"), .boolean("redownload"), .boolean("did_win"), .integer("sequence_index"),
                .integer("fine_value"), .text("coarse_value"), .text("country"), .text("marketplace"), .integer("publisher_item_id"),
                .time("received_at"),
            ]
        case .appleAdsClaims:
            [
                .text("project_id"), .text("install_id"), .text("status"), .text("org_id"), .text("campaign_id"), .text("ad_group_id"),
                .text("keyword_id"), .text("ad_id"), .text("conversion_type"), .text("claim_type"), .time("claimed_at"),
                .text("country"), .text("supply_placement"), .boolean("is_test"), .boolean("won"), .time("token_received_at"),
                .time("answered_at"),
            ]
        case .adPlatformClaims:
            [
                .text("project_id"), .text("install_id"), .text("source"), .text("campaign_id"), .text("campaign_name"),
                .text("ad_group_id"), .text("ad_group_name"), .text("ad_id"), .text("interaction"), .time("engaged_at"),
                .boolean("won"), .time("received_at"),
            ]
        case .rejectedInstalls:
            [
                .text("project_id"), .text("install_id", sql: "id"), .time("created_at"), .json("rejected_reasons"),
                .text("rejected_click_id"), .json("quality_flags"), .text("ip_class"), .text("platform"), .text("country"),
                .text("match_type"), .text("link_id"),
            ]
        case .erasures:
            [
                .text("project_id"), .text("erasure_id", sql: "id"), .time("erased_at"), .text("kind"), .text("install_id"),
                .text("user_id"),
            ]
        }
    }
}

/// One exported column: its name in the files, the SQL that reads it, and how it is written.
public struct ExportColumn: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case text, integer, real, boolean
        /// Milliseconds since the epoch in the store; ISO 8601 UTC with milliseconds in the files.
        case timestamp
        /// JSON text in the store; the JSON itself in NDJSON, its text in CSV.
        case json
    }

    public let name: String
    public let sql: String
    public let kind: Kind

    public static func text(_ name: String, sql: String? = nil) -> Self { Self(name: name, sql: sql ?? name, kind: .text) }
    public static func integer(_ name: String) -> Self { Self(name: name, sql: name, kind: .integer) }
    public static func real(_ name: String) -> Self { Self(name: name, sql: name, kind: .real) }
    public static func boolean(_ name: String) -> Self { Self(name: name, sql: name, kind: .boolean) }
    public static func time(_ name: String) -> Self { Self(name: name, sql: name, kind: .timestamp) }
    public static func json(_ name: String) -> Self { Self(name: name, sql: name, kind: .json) }
}

/// A stored value as the export reads it.
public enum ExportValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}
