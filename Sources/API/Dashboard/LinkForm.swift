import Attribution
import Foundation
import HTTP
import JSON

/// The dashboard's link form, for creating and for editing: every field the admin API's link
/// payload takes (`AdminLinkPayload`), turned back into that payload so both paths validate alike.
enum LinkForm {
    enum Kind { case text, url, wholeNumber, checkbox, json, parameters, time }

    static let fields: [(name: String, label: String, kind: Kind)] = [
        ("short_code", "Short code (empty: generated, or kept when editing)", .text), ("template_slug", "Template slug (optional)", .text),
        ("title", "Title", .text), ("description", "Description", .text), ("original_url", "Destination URL", .url),
        ("ios_url", "iOS URL", .url), ("android_url", "Android URL", .url), ("web_url", "Web URL", .url),
        ("app_scheme", "App scheme", .text), ("deep_link_path", "Deep link path", .text),
        ("deep_link_parameters", "Deep link parameters", .parameters),
        ("utm_source", "UTM source", .text), ("utm_medium", "UTM medium", .text), ("utm_campaign", "UTM campaign", .text),
        ("utm_term", "UTM term", .text), ("utm_content", "UTM content", .text),
        ("og_title", "Preview title (Open Graph)", .text), ("og_description", "Preview description", .text),
        ("og_image", "Preview image URL", .url), ("targeting", "Targeting (JSON)", .json),
        ("attribution_window_hours", "Attribution window in hours (empty: the project's)", .wholeNumber),
        ("expires_at", "Expires at (UTC)", .time),
        ("expired_url", "After it expires, send taps to (empty: a 410 page)", .url),
        ("max_clicks", "Most clicks (empty: no limit)", .wholeNumber),
        ("append_click_id", "Append the click id to destination URLs", .checkbox), ("active", "Active", .checkbox),
    ]

    /// The form's fields as the admin API's JSON body, decoded by its payload.
    static func payload(_ form: DashboardForm) throws -> AdminLinkPayload {
        var body: [String: JSONValue] = [:]
        var utm: [String: JSONValue] = [:]
        var og: [String: JSONValue] = [:]
        for field in fields {
            if field.kind == .checkbox {
                // A hidden 0 precedes each checkbox, whose 1 comes after it when ticked; a form
                // without the field at all (a script) leaves the API's default.
                if let sent = form.fields.last(where: { $0.name == field.name }) { body[field.name] = .bool(sent.value == "1") }
                continue
            }
            if field.kind == .parameters {
                if let parameters = parameterRows(form) { body[field.name] = parameters }
                continue
            }
            guard let text = form.text(field.name) else { continue }
            let value: JSONValue
            switch field.kind {
            case .time:
                // A browser's date-time field sends `2026-12-31T23:59` (no seconds, no zone): UTC.
                value = .string(text.count == 16 ? text + ":00Z" : text.count == 19 ? text + "Z" : text)
            case .wholeNumber:
                guard let number = Int(text) else { throw HTTPError.invalidField(field.name, "must be a whole number") }
                value = .number(Double(number))
            case .json:
                guard let decoded = try? JSONBody.decode(JSONValue.self, from: Array(text.utf8)) else {
                    throw HTTPError.invalidField(field.name, "is not valid JSON")
                }
                value = decoded
            default:
                value = .string(text)
            }
            if field.name.hasPrefix("utm_") {
                utm[String(field.name.dropFirst(4))] = value
            } else if field.name.hasPrefix("og_") {
                og[String(field.name.dropFirst(3))] = value
            } else {
                body[field.name] = value
            }
        }
        if let domain = form.text("domain") { body["domain"] = .string(domain) }
        if let escape = form.text("in_app_escape") { body["in_app_escape"] = .bool(escape == "1") }
        if let template = form.text("utm_template") { body["utm_template"] = .string(template) }
        if let password = form["password"], !password.isEmpty { body["password"] = .string(password) }
        let routing = LinkRoutingForm.json(form)
        if let rules = routing.rules { body["rules"] = rules }
        if let variants = routing.variants { body["variants"] = variants }
        if !utm.isEmpty { body["utm"] = .object(utm) }
        if !og.isEmpty { body["og"] = .object(og) }
        return try JSONBody.decode(AdminLinkPayload.self, from: JSONValue.object(body).serialized())
    }

    /// `param_key_N` / `param_value_N` rows as the API's `deep_link_parameters` (nil: the form has no rows).
    static func parameterRows(_ form: DashboardForm) -> JSONValue? {
        let indexes = LinkRoutingForm.rowIndexes(form, prefix: "param_key_")
        guard !indexes.isEmpty else { return nil }
        var parameters: [String: JSONValue] = [:]
        for index in indexes {
            guard let key = form.text("param_key_\(index)") else { continue }
            parameters[key] = .string(form["param_value_\(index)"] ?? "")
        }
        return .object(parameters)
    }

    /// What a problem from the admin API's payload says, with the field's label for its key
    /// (`original_url: …` reads `Destination URL: …`).
    static func labelled(_ problem: String) -> String {
        for field in fields.sorted(by: { $0.name.count > $1.name.count }) where problem.hasPrefix(field.name + ":") {
            return field.label + problem.dropFirst(field.name.count)
        }
        // `rules[1].when.country: …` reads `Routing rule 2, country: …` (rows count from 1 on the form).
        for (key, label) in [("rules", "Routing rule"), ("variants", "A/B variant")] where problem.hasPrefix(key + "[") {
            let rest = problem.dropFirst(key.count + 1)
            guard let close = rest.firstIndex(of: "]"), let index = Int(rest[..<close]) else { break }
            var detail = rest[rest.index(after: close)...]
            if detail.hasPrefix(".when.") { detail = detail.dropFirst(6) } else if detail.hasPrefix(".") { detail = detail.dropFirst() }
            return "\(label) \(index + 1)" + (detail.hasPrefix(":") ? "" : ", ") + detail
        }
        for (key, label) in [("rules", "Routing rules"), ("variants", "A/B split"), ("utm_template", "UTM template"), ("password", "Password")]
        where problem.hasPrefix(key + ":") {
            return label + problem.dropFirst(key.count)
        }
        return problem
    }

    /// A link's fields as the form shows them.
    static func values(of link: Link, templateSlug: String?) -> [String: String] {
        var values: [String: String] = [
            "short_code": link.shortCode, "append_click_id": link.appendClickID ? "1" : "", "active": link.active ? "1" : "",
        ]
        values["template_slug"] = templateSlug
        values["domain"] = link.domain
        values["title"] = link.title
        values["description"] = link.description
        values["original_url"] = link.originalURL
        values["ios_url"] = link.iosURL
        values["android_url"] = link.androidURL
        values["web_url"] = link.webURL
        values["app_scheme"] = link.appScheme
        values["deep_link_path"] = link.deepLinkPath
        for (index, entry) in link.deepLinkParameters.sorted(by: { $0.key < $1.key }).enumerated() {
            values["param_key_\(index)"] = entry.key
            values["param_value_\(index)"] = entry.value
        }
        values["param_rows"] = String(link.deepLinkParameters.count)
        for (key, value) in link.utm.map { values["utm_" + key] = value }
        values["og_title"] = link.og.title
        values["og_description"] = link.og.description
        values["og_image"] = link.og.image
        values["targeting"] = link.targeting
        values["attribution_window_hours"] = link.attributionWindowHours.map(String.init)
        values["expires_at"] = link.expiresAt.map { String($0.iso8601.prefix(16)) }
        values["max_clicks"] = link.maxClicks.map(String.init)
        values["expired_url"] = link.expiredURL
        values["in_app_escape"] = link.inAppEscape.map { $0 ? "1" : "0" }
        values["has_password"] = link.passwordHash == nil ? nil : "1"
        return values.merging(LinkRoutingForm.values(of: link)) { _, routing in routing }
    }

    /// The form's sections after the fields most links need (destination, short code, domain,
    /// deep link): each folded unless it holds a value or the problem names one of its fields.
    static let sections: [(title: String, fields: [String])] = [
        ("Per-platform destinations", ["ios_url", "android_url", "web_url"]),
        ("UTM parameters", ["utm_template", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"]),
        ("Social preview", ["description", "og_title", "og_description", "og_image"]),
        ("Targeting, limits and expiry", ["targeting", "attribution_window_hours", "expires_at", "expired_url", "max_clicks", "template_slug"]),
        ("Password", ["password"]),
        ("Routing rules and A/B split", ["rule_", "variant_", "rules", "variants"]),
        ("More", ["append_click_id", "in_app_escape"]),
    ]

    /// Where a tap goes, in the order the server decides it.
    static let whichURLWins: HTML = """
        <p class="muted">Where a tap goes: the app first, when installed; otherwise a routing rule that holds, else an A/B \
        variant; otherwise on an iPhone the iOS URL (else the project's App Store URL), on Android the Android URL (else its \
        Play Store URL), on a computer the web URL (else the project's website). The destination URL is the last fallback for all.</p>
        """

    /// - Parameters:
    ///   - domains: the project's own domains, offered as where the link lives.
    ///   - utmTemplates: the project's, offered to fill the UTM fields left empty.
    static func render(
        action: String, csrf: HTML, values: [String: String], problem: String?, submit: String, domains: [String] = [],
        utmTemplates: [UTMTemplate] = []
    ) -> HTML {
        var html: HTML = #"<form class="stack" method="post" action="\#(action)">"# + csrf
        if let problem { html += #"<p class="error" role="alert">\#(labelled(problem))</p>"# }
        var rendered: [String: HTML] = [:]
        for field in fields { rendered[field.name] = input(field, values) }
        if !utmTemplates.isEmpty {
            let chosen = values["utm_template"] ?? ""
            let options =
                [#"<option value="">None</option>"# as HTML]
                + utmTemplates.map { template -> HTML in
                    let described = template.utm.queryItems.map { "\($0.0.dropFirst(4)) \($0.1)" }.joined(separator: ", ")
                    return
                        #"<option value="\#(template.name)"\#(template.name == chosen ? " selected" : "" as HTML)>\#(template.name) — \#(described)</option>"#
                }
            rendered["utm_template"] =
                #"<label>UTM template (fills the UTM fields left empty)<select name="utm_template">\#(options)</select></label>"#
        }
        if !domains.isEmpty || values["domain"]?.isEmpty == false {
            let chosen = values["domain"] ?? ""
            let options = ([""] + domains).map { name -> HTML in
                #"<option value="\#(name)"\#(name == chosen ? " selected" : "" as HTML)>\#(name.isEmpty ? "This server's own name" : name)</option>"#
            }
            rendered["domain"] = #"<label>Domain<select name="domain">\#(options)</select></label>"#
        }
        let escape = values["in_app_escape"] ?? ""
        let escapeOptions = [("", "As the project says"), ("1", "Lead them out"), ("0", "Leave them in the app's browser")].map { choice -> HTML in
            #"<option value="\#(choice.0)"\#(choice.0 == escape ? " selected" : "" as HTML)>\#(choice.1)</option>"#
        }
        rendered["in_app_escape"] = #"<label>Taps in social apps' browsers<select name="in_app_escape">\#(escapeOptions)</select></label>"#
        let hasPassword = values["has_password"] == "1"
        rendered["password"] =
            #"<label>\#(hasPassword ? "New password (empty: keep the current one)" : "Password (empty: none)")<input name="password" type="password" autocomplete="new-password"></label>"#
            + (hasPassword
                ? #"<input type="hidden" name="has_password" value="1"><label><input type="checkbox" name="remove_password" value="1"> Remove the password</label>"#
                : "" as HTML)
        rendered["rules"] = LinkRoutingForm.render(values)
        for name in ["original_url", "short_code", "domain", "app_scheme", "deep_link_path", "deep_link_parameters", "title", "active"] {
            html += rendered[name] ?? ""
        }
        html += whichURLWins
        let problemText = problem ?? ""
        for section in sections {
            let members = section.fields.filter { rendered[$0] != nil }
            let holdsValue = values.contains { key, value in
                !value.isEmpty && value != "0" && section.fields.contains { key == $0 || (key.hasPrefix($0) && $0.hasSuffix("_")) }
                    && key != "rule_rows" && key != "variant_rows"
            }
            // The API names `utm.source` and `og.title` where the form has `utm_source`, `og_title`.
            let named = section.fields.contains { name in
                problemText.hasPrefix(name)
                    || problemText.hasPrefix(name.replacingOccurrences(of: "utm_", with: "utm.").replacingOccurrences(of: "og_", with: "og."))
            }
            let open: HTML = holdsValue || named ? " open" : ""
            html += "<details\(open)><summary>\(section.title)</summary><div class=\"stack-fields\">"
            html += HTML(joining: members.compactMap { rendered[$0] })
            html += "</div></details>"
        }
        return html + "<button>\(submit)</button></form>"
    }

    /// One field's label and input, as the form shows it.
    private static func input(_ field: (name: String, label: String, kind: Kind), _ values: [String: String]) -> HTML {
        let value = values[field.name] ?? ""
        switch field.kind {
        case .checkbox:
            return
                #"<input type="hidden" name="\#(field.name)" value="0"><label class="check"><input type="checkbox" name="\#(field.name)" value="1"\#(values[field.name] == "1" ? " checked" : "" as HTML)> \#(field.label)</label>"#
        case .parameters:
            let rows = (Int(values["param_rows"] ?? "") ?? 0) + 2
            var html: HTML = #"<fieldset><legend>\#(field.label) (added to the deep link's query)</legend>"#
            for index in 0..<rows {
                let key = values["param_key_\(index)"] ?? ""
                let parameter = values["param_value_\(index)"] ?? ""
                html +=
                    #"<div class="variant"><label>Name<input name="param_key_\#(index)" value="\#(key)"></label>"#
                    + #"<label>Value<input name="param_value_\#(index)" value="\#(parameter)"></label></div>"#
            }
            return html + "</fieldset>"
        case .time:
            return #"<label>\#(field.label)<input name="\#(field.name)" type="datetime-local" value="\#(value)"></label>"#
        case .json:
            return #"<label>\#(field.label)<textarea name="\#(field.name)" rows="2">\#(value)</textarea></label>"#
        case .url:
            return #"<label>\#(field.label)<input name="\#(field.name)" type="url" value="\#(value)"></label>"#
        case .wholeNumber:
            return #"<label>\#(field.label)<input name="\#(field.name)" inputmode="numeric" value="\#(value)"></label>"#
        case .text:
            return #"<label>\#(field.label)<input name="\#(field.name)" value="\#(value)"></label>"#
        }
    }

    /// What a submitted form shows again after a problem (never the password).
    static func values(of form: DashboardForm) -> [String: String] {
        var values = Dictionary(form.fields.filter { $0.name != "password" }.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
            .merging(LinkRoutingForm.values(of: form)) { _, routing in routing }
        values["param_rows"] = String((LinkRoutingForm.rowIndexes(form, prefix: "param_key_").last ?? -1) + 1)
        return values
    }
}
