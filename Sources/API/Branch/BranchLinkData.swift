import Attribution
import JSON

/// A link as Branch's SDKs hand it to the app (the session's `data`, `GET /v1/url`'s answer):
/// Branch's own keys (`~channel`, `~feature`, `~campaign`, `~stage`, `~tags`, `~id`,
/// `~referring_link`, `$deeplink_path`, `$canonical_identifier`, `$og_*`, `$ios_url`…) beside
/// the link's own parameters: `BranchLinkFields` read the other way.
enum BranchLinkData {
    /// The link's data: its parameters, then Branch's keys for its fields (which win).
    static func fields(_ target: LinkTarget, shortURL: String) -> [String: JSONValue] {
        var fields = target.deepLinkParameters.mapValues(JSONValue.string)
        let link = target.link
        let utm = target.utm
        func set(_ key: String, _ value: String?) { if let value, !value.isEmpty { fields[key] = .string(value) } }
        set("$deeplink_path", target.deepLinkPath.map { $0.hasPrefix("/") ? String($0.dropFirst()) : $0 })
        set("$canonical_identifier", fields["$canonical_identifier"]?.stringValue ?? link.shortCode)
        set("$ios_url", link.iosURL)
        set("$android_url", link.androidURL)
        set("$fallback_url", link.webURL)
        set("$og_title", link.og.title)
        set("$og_description", link.og.description)
        set("$og_image_url", link.og.image)
        set("~channel", utm.source)
        set("~feature", utm.medium)
        set("~campaign", utm.campaign)
        set("~stage", utm.content)
        if let term = utm.term, !term.isEmpty { fields["~tags"] = .array(term.split(separator: ",").map { .string(String($0)) }) }
        fields["~id"] = .string(link.id)
        fields["~referring_link"] = .string(shortURL)
        fields["~creation_source"] = .number(0)
        fields["$one_time_use"] = .bool(false)
        return fields
    }

    /// What a session's `data` says: the link's data and Branch's markers of how it came
    /// (`+clicked_branch_link`, `+is_first_session`, `+match_guaranteed`, `+click_timestamp` in
    /// seconds), or only the markers when no link did.
    static func session(
        link: (target: LinkTarget, shortURL: String)?, firstSession: Bool, guaranteed: Bool, clickedAt: Timestamp?
    ) -> JSONValue {
        var fields: [String: JSONValue] = ["+clicked_branch_link": .bool(link != nil), "+is_first_session": .bool(firstSession)]
        guard let link else { return .object(fields) }
        fields.merge(Self.fields(link.target, shortURL: link.shortURL)) { markers, _ in markers }
        fields["+match_guaranteed"] = .bool(guaranteed)
        if let clickedAt { fields["+click_timestamp"] = .number(Double(clickedAt.milliseconds / 1000)) }
        return .object(fields)
    }
}

extension JSONValue {
    fileprivate var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
