import Attribution
import Foundation
import HTTP
import JSON

/// The link form's rules and A/B variants as rows of plain fields (no JSON to type): each rule a
/// URL and its conditions, each variant a name, URL and weight. A row without a URL is left out,
/// so the form always offers two empty rows to add with, and a row is removed by emptying it.
enum LinkRoutingForm {
    static let spareRows = 2
    static let platforms = TapPlatform.allCases.map(\.rawValue)

    // MARK: Reading the form

    /// The rows as the admin API's `rules` and `variants` values (nil: the form has no such rows).
    static func json(_ form: DashboardForm) -> (rules: JSONValue?, variants: JSONValue?) {
        (rules(form), variants(form))
    }

    static func rules(_ form: DashboardForm) -> JSONValue? {
        let indexes = rowIndexes(form, prefix: "rule_url_")
        guard !indexes.isEmpty else { return nil }
        var rules: [JSONValue] = []
        for index in indexes {
            guard let url = form.text("rule_url_\(index)") else { continue }
            var when: [String: JSONValue] = [:]
            let chosen = form.fields.filter { $0.name == "rule_platform_\(index)" }.map(\.value)
            if !chosen.isEmpty { when["platform"] = .array(chosen.map(JSONValue.string)) }
            var version: [String: JSONValue] = [:]
            if let low = form.text("rule_os_min_\(index)") { version["min"] = .string(low) }
            if let high = form.text("rule_os_max_\(index)") { version["max"] = .string(high) }
            if !version.isEmpty { when["os_version"] = .object(version) }
            for (field, key) in [("rule_language_", "language"), ("rule_country_", "country"), ("rule_in_app_", "in_app")] {
                if let list = form.text(field + "\(index)") { when[key] = .array(commaSeparated(list).map(JSONValue.string)) }
            }
            if let after = form.text("rule_after_\(index)") { when["after"] = .string(after) }
            if let before = form.text("rule_before_\(index)") { when["before"] = .string(before) }
            rules.append(.object(["when": .object(when), "url": .string(url)]))
        }
        return .array(rules)
    }

    static func variants(_ form: DashboardForm) -> JSONValue? {
        let indexes = rowIndexes(form, prefix: "variant_url_")
        guard !indexes.isEmpty else { return nil }
        var variants: [JSONValue] = []
        for index in indexes {
            guard let url = form.text("variant_url_\(index)") else { continue }
            var variant: [String: JSONValue] = ["url": .string(url)]
            if let name = form.text("variant_name_\(index)") { variant["name"] = .string(name) }
            let weight = form.text("variant_weight_\(index)") ?? "1"
            // A weight that is not a number reaches the API's check as text, which names the field.
            variant["weight"] = Double(weight).map(JSONValue.number) ?? .string(weight)
            variants.append(.object(variant))
        }
        return .array(variants)
    }

    /// The row numbers the form holds for `prefix`, in order.
    static func rowIndexes(_ form: DashboardForm, prefix: String) -> [Int] {
        Set(form.fields.compactMap { $0.name.hasPrefix(prefix) ? Int($0.name.dropFirst(prefix.count)) : nil }).sorted()
    }

    static func commaSeparated(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    // MARK: Showing the form

    /// A link's rules and variants as the form's values.
    static func values(of link: Link) -> [String: String] {
        var values: [String: String] = [:]
        for (index, rule) in link.rules.enumerated() {
            values["rule_url_\(index)"] = rule.url
            let when = rule.when
            for platform in when.platforms ?? [] { values["rule_platform_\(index)_\(platform.rawValue)"] = "1" }
            values["rule_os_min_\(index)"] = when.minOSVersion
            values["rule_os_max_\(index)"] = when.maxOSVersion
            values["rule_language_\(index)"] = when.languages?.joined(separator: ", ")
            values["rule_country_\(index)"] = when.countries?.joined(separator: ", ")
            values["rule_in_app_\(index)"] = when.inAppBrowsers?.joined(separator: ", ")
            values["rule_after_\(index)"] = when.after?.iso8601
            values["rule_before_\(index)"] = when.before?.iso8601
        }
        for (index, variant) in link.variants.enumerated() {
            values["variant_name_\(index)"] = variant.name
            values["variant_url_\(index)"] = variant.url
            values["variant_weight_\(index)"] = String(variant.weight)
        }
        values["rule_rows"] = String(link.rules.count)
        values["variant_rows"] = String(link.variants.count)
        return values
    }

    /// A submitted form's values again (platform boxes are repeated fields of one name).
    static func values(of form: DashboardForm) -> [String: String] {
        var values: [String: String] = [:]
        for field in form.fields where field.name.hasPrefix("rule_platform_") {
            values["\(field.name)_\(field.value)"] = "1"
        }
        values["rule_rows"] = String((rowIndexes(form, prefix: "rule_url_").last ?? -1) + 1)
        values["variant_rows"] = String((rowIndexes(form, prefix: "variant_url_").last ?? -1) + 1)
        return values
    }

    static func render(_ values: [String: String]) -> HTML {
        func value(_ name: String) -> String { values[name] ?? "" }
        let ruleRows = (Int(values["rule_rows"] ?? "") ?? 0) + spareRows
        var html: HTML = """
            <fieldset><legend>Routing rules</legend><p class="muted">Tried in order; the first whose conditions all hold sends the \
            tap to its URL. Leave a condition empty to not ask it; a rule with none catches every tap. Lists are comma-separated: \
            languages such as de, pt-BR; countries such as DE, AT; in-app browsers such as instagram, tiktok or any. \
            Empty a rule's URL to remove it.</p>
            """
        for index in 0..<ruleRows {
            let boxes = HTML(
                joining: platforms.map { platform -> HTML in
                    let checked: HTML = values["rule_platform_\(index)_\(platform)"] == "1" ? " checked" : ""
                    return
                        #"<label class="inline"><input type="checkbox" name="rule_platform_\#(index)" value="\#(platform)"\#(checked)> \#(platform)</label>"#
                }, separator: " ")
            html += """
                <fieldset class="rule"><legend>Rule \(index + 1)</legend>\
                <label>Send to URL<input name="rule_url_\(index)" type="url" value="\(value("rule_url_\(index)"))"></label>\
                <div>Platforms \(boxes)</div>\
                <label>OS version from<input name="rule_os_min_\(index)" value="\(value("rule_os_min_\(index)"))" placeholder="16"></label>\
                <label>OS version up to<input name="rule_os_max_\(index)" value="\(value("rule_os_max_\(index)"))" placeholder="17.4"></label>\
                <label>Languages<input name="rule_language_\(index)" value="\(value("rule_language_\(index)"))" placeholder="de, fr"></label>\
                <label>Countries<input name="rule_country_\(index)" value="\(value("rule_country_\(index)"))" placeholder="DE, AT"></label>\
                <label>In-app browsers<input name="rule_in_app_\(index)" value="\(value("rule_in_app_\(index)"))" placeholder="instagram, tiktok"></label>\
                <label>From (ISO 8601)<input name="rule_after_\(index)" value="\(value("rule_after_\(index)"))" placeholder="2026-12-01T00:00:00Z"></label>\
                <label>Until (ISO 8601)<input name="rule_before_\(index)" value="\(value("rule_before_\(index)"))"></label></fieldset>
                """
        }
        html += "</fieldset>"
        let variantRows = (Int(values["variant_rows"] ?? "") ?? 0) + spareRows
        html += """
            <fieldset><legend>A/B split</legend><p class="muted">Two or more destinations for taps no rule caught, in proportion \
            to their weights (0 pauses one); a visitor keeps the one first picked. Leave every URL empty for no split.</p>
            """
        for index in 0..<variantRows {
            html += """
                <div class="variant"><label>Name<input name="variant_name_\(index)" value="\(value("variant_name_\(index)"))" placeholder="\(String(UnicodeScalar(UInt8(65 + min(index, 25)))))"></label>\
                <label>URL<input name="variant_url_\(index)" type="url" value="\(value("variant_url_\(index)"))"></label>\
                <label>Weight<input name="variant_weight_\(index)" inputmode="numeric" value="\(value("variant_weight_\(index)"))" placeholder="1"></label></div>
                """
        }
        return html + "</fieldset>"
    }
}
