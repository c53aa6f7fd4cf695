import Attribution
import JSON

/// The settings page's UTM templates as rows of fields: a name and the five UTM values each, two
/// spare rows to add with; a row without a name is left out, so emptying it removes it.
enum UTMTemplateRows {
    static let keys = ["source", "medium", "campaign", "term", "content"]

    /// The rows as the admin API's `utm_templates` (nil: the form has no rows).
    static func json(_ form: DashboardForm) -> JSONValue? {
        let indexes = LinkRoutingForm.rowIndexes(form, prefix: "utm_name_")
        guard !indexes.isEmpty else { return nil }
        var templates: [JSONValue] = []
        for index in indexes {
            guard let name = form.text("utm_name_\(index)") else { continue }
            var fields: [String: JSONValue] = ["name": .string(name)]
            for key in keys { if let value = form.text("utm_\(key)_\(index)") { fields[key] = .string(value) } }
            templates.append(.object(fields))
        }
        return .array(templates)
    }

    static func values(of templates: [UTMTemplate]) -> [[String: String]] {
        templates.map { template in template.utm.map.merging(["name": template.name]) { $1 } }
    }

    static func values(of form: DashboardForm) -> [[String: String]] {
        LinkRoutingForm.rowIndexes(form, prefix: "utm_name_").map { index in
            var row: [String: String] = ["name": form["utm_name_\(index)"] ?? ""]
            for key in keys { row[key] = form["utm_\(key)_\(index)"] }
            return row
        }.filter { !($0["name"] ?? "").isEmpty }
    }

    static func render(_ rows: [[String: String]], problem: String?) -> HTML {
        var html: HTML = """
            <fieldset><legend>UTM templates</legend><p class="muted">Named UTM values offered when a link is made: the chosen \
            one fills the UTM fields the link leaves empty. Empty a name to remove its template.</p>
            """
        if let problem { html += #"<p class="error" role="alert">\#(problem)</p>"# }
        for index in 0..<(rows.count + 2) {
            let row = index < rows.count ? rows[index] : [:]
            html += #"<div class="variant"><label>Name<input name="utm_name_\#(index)" value="\#(row["name"] ?? "")"></label>"#
            for key in keys {
                html +=
                    #"<label>\#(key.prefix(1).uppercased() + key.dropFirst())<input name="utm_\#(key)_\#(index)" value="\#(row[key] ?? "")"></label>"#
            }
            html += "</div>"
        }
        return html + "</fieldset>"
    }
}
