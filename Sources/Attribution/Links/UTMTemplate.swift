public import JSON

/// A project's named set of UTM values (`utm_templates`), offered when a link is made: the
/// template's values fill the keys the new link leaves empty, and are stored on the link.
public struct UTMTemplate: Sendable, Equatable {
    public var name: String
    public var utm: UTM

    public init(name: String, utm: UTM) {
        self.name = name
        self.utm = utm
    }

    public static let maximumCount = 20

    /// `link`'s UTM values with the template's in the keys `link` leaves empty.
    public func filling(_ link: UTM) -> UTM { utm.overridden(by: link) }

    /// `[{"name": "Newsletter", "source": "newsletter", "medium": "email", …}]`, read strictly:
    /// each refusal names its key (`utm_templates[1].medium`).
    public static func parse(_ value: JSONValue, key: String = "utm_templates") throws(LinkRoutingJSON.Refusal) -> [UTMTemplate] {
        guard case .array(let items) = value else { throw .init(key, "must be an array of templates") }
        guard items.count <= maximumCount else { throw .init(key, "at most \(maximumCount) templates") }
        var templates: [UTMTemplate] = []
        for (index, item) in items.enumerated() {
            let at = "\(key)[\(index)]"
            guard case .object(let fields) = item else { throw .init(at, "must be an object with a name and UTM values") }
            var values: [String: String] = [:]
            var name: String?
            for (field, value) in fields {
                guard case .string(let text) = value, !text.isEmpty, text.count <= 200 else {
                    throw .init("\(at).\(field)", "must be a text of 1 to 200 characters")
                }
                if field == "name" {
                    name = text
                } else if LinkTemplate.utmKeys.contains(field) {
                    values[field] = text
                } else {
                    throw .init("\(at).\(field)", "unknown key; use name, source, medium, campaign, term or content")
                }
            }
            guard let name, name.count <= 64 else { throw .init("\(at).name", "is required: 1 to 64 characters") }
            guard !templates.contains(where: { $0.name == name }) else { throw .init("\(at).name", "'\(name)' names another template") }
            guard !values.isEmpty else { throw .init(at, "needs at least one UTM value") }
            templates.append(UTMTemplate(name: name, utm: UTM(values)))
        }
        return templates
    }

    public static func json(_ templates: [UTMTemplate]) -> JSONValue {
        .array(templates.map { template in .object(template.utm.map.mapValues(JSONValue.string).merging(["name": .string(template.name)]) { $1 }) })
    }
}
