public import JSON

/// A link's `rules` and `variants` as the admin API and the store write them (JSON), read
/// strictly: every refusal names the key it is about (`rules[1].when.platform`).
public enum LinkRoutingJSON {
    public struct Refusal: Error, Sendable, Equatable {
        public let problem: ValidationProblem
        init(_ key: String, _ message: String) { problem = ValidationProblem(key, message) }
    }

    public static let maximumRules = 50
    public static let maximumVariants = 10
    public static let maximumWeight = 1000
    /// The names `in_app` takes: the apps `UserAgentParser` recognises, and `any`.
    public static var inAppNames: [String] { ["any"] + UserAgentParser.inAppBrowserNames.map { $0.lowercased() } }

    // MARK: Rules

    public static func rules(_ value: JSONValue, key: String = "rules") throws(Refusal) -> [LinkRule] {
        guard case .array(let items) = value else { throw Refusal(key, "must be an array of rules") }
        guard items.count <= maximumRules else { throw Refusal(key, "at most \(maximumRules) rules") }
        var rules: [LinkRule] = []
        for (index, item) in items.enumerated() {
            let at = "\(key)[\(index)]"
            guard case .object(let fields) = item else { throw Refusal(at, "must be an object with \"url\" and \"when\"") }
            for name in fields.keys where name != "url" && name != "when" {
                throw Refusal("\(at).\(name)", "unknown key; a rule has \"when\" and \"url\"")
            }
            guard case .string(let url)? = fields["url"] else { throw Refusal("\(at).url", "is required: the URL the tap goes to") }
            if let problem = URLGrammar.httpURLProblem(url) { throw Refusal("\(at).url", problem) }
            let conditions = try self.conditions(fields["when"] ?? .object([:]), key: "\(at).when")
            rules.append(LinkRule(when: conditions, url: url))
        }
        return rules
    }

    static func conditions(_ value: JSONValue, key: String) throws(Refusal) -> LinkRule.Conditions {
        guard case .object(let fields) = value else { throw Refusal(key, "must be an object of conditions") }
        var conditions = LinkRule.Conditions()
        for (name, value) in fields {
            let at = "\(key).\(name)"
            switch name {
            case "platform":
                conditions.platforms = try strings(value, key: at).map { (text: String) throws(Refusal) -> TapPlatform in
                    guard let platform = TapPlatform(rawValue: text.lowercased()) else {
                        throw Refusal(at, "unknown platform '\(text)'; use ios, ipados, android, desktop or other")
                    }
                    return platform
                }
            case "os_version":
                guard case .object(let bounds) = value, !bounds.isEmpty else { throw Refusal(at, "must be an object with \"min\" and/or \"max\"") }
                for (bound, text) in bounds {
                    guard bound == "min" || bound == "max" else { throw Refusal("\(at).\(bound)", "unknown key; use min or max") }
                    guard case .string(let version) = text, isVersion(version) else {
                        throw Refusal("\(at).\(bound)", "must be a version such as \"16\" or \"17.4\"")
                    }
                    if bound == "min" { conditions.minOSVersion = version } else { conditions.maxOSVersion = version }
                }
            case "language":
                conditions.languages = try strings(value, key: at).map { (text: String) throws(Refusal) -> String in
                    guard isLanguageTag(text) else { throw Refusal(at, "'\(text)' is not a language tag such as de or pt-BR") }
                    return text.lowercased()
                }
            case "country":
                conditions.countries = try strings(value, key: at).map { (text: String) throws(Refusal) -> String in
                    guard text.utf8.count == 2, text.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }) else {
                        throw Refusal(at, "'\(text)' is not a two-letter country code (ISO 3166-1)")
                    }
                    return text.uppercased()
                }
            case "in_app":
                let known = inAppNames
                conditions.inAppBrowsers = try strings(value, key: at).map { (text: String) throws(Refusal) -> String in
                    guard known.contains(text.lowercased()) else {
                        throw Refusal(at, "unknown in-app browser '\(text)'; use one of \(known.joined(separator: ", "))")
                    }
                    return text.lowercased()
                }
            case "after", "before":
                guard case .string(let text) = value, let time = Timestamp(iso8601: text) else {
                    throw Refusal(at, "must be an ISO 8601 time such as 2026-12-01T00:00:00Z")
                }
                if name == "after" { conditions.after = time } else { conditions.before = time }
            default:
                throw Refusal(at, "unknown condition; use platform, os_version, language, country, in_app, after or before")
            }
        }
        if let after = conditions.after, let before = conditions.before, !(after < before) {
            throw Refusal("\(key).before", "must be later than after")
        }
        return conditions
    }

    /// A string or an array of 1 to 50 strings.
    static func strings(_ value: JSONValue, key: String) throws(Refusal) -> [String] {
        if case .string(let text) = value { return [text] }
        guard case .array(let items) = value, (1...50).contains(items.count) else {
            throw Refusal(key, "must be a string or an array of 1 to 50 strings")
        }
        return try items.map { (item: JSONValue) throws(Refusal) -> String in
            guard case .string(let text) = item else { throw Refusal(key, "must hold strings only") }
            return text
        }
    }

    static func isVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...4).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCII) && Int($0) != nil }
    }

    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let primary = parts.first, (2...3).contains(primary.count), parts.count <= 3 else { return false }
        return parts.allSatisfy { part in
            (1...8).contains(part.count) && part.utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A || ($0 >= 0x30 && $0 <= 0x39) }
        }
    }

    public static func json(_ rules: [LinkRule]) -> JSONValue {
        .array(
            rules.map { rule in
                var when: [String: JSONValue] = [:]
                let conditions = rule.when
                if let platforms = conditions.platforms { when["platform"] = .array(platforms.map { .string($0.rawValue) }) }
                if conditions.minOSVersion != nil || conditions.maxOSVersion != nil {
                    var bounds: [String: JSONValue] = [:]
                    bounds["min"] = conditions.minOSVersion.map(JSONValue.string)
                    bounds["max"] = conditions.maxOSVersion.map(JSONValue.string)
                    when["os_version"] = .object(bounds)
                }
                if let languages = conditions.languages { when["language"] = .array(languages.map(JSONValue.string)) }
                if let countries = conditions.countries { when["country"] = .array(countries.map(JSONValue.string)) }
                if let browsers = conditions.inAppBrowsers { when["in_app"] = .array(browsers.map(JSONValue.string)) }
                if let after = conditions.after { when["after"] = .string(after.iso8601) }
                if let before = conditions.before { when["before"] = .string(before.iso8601) }
                return .object(["when": .object(when), "url": .string(rule.url)])
            })
    }

    // MARK: Variants

    public static func variants(_ value: JSONValue, key: String = "variants") throws(Refusal) -> [LinkVariant] {
        guard case .array(let items) = value else { throw Refusal(key, "must be an array of variants") }
        guard items.isEmpty || (2...maximumVariants).contains(items.count) else {
            throw Refusal(key, "must hold 2 to \(maximumVariants) variants (or none)")
        }
        var variants: [LinkVariant] = []
        for (index, item) in items.enumerated() {
            let at = "\(key)[\(index)]"
            guard case .object(let fields) = item else { throw Refusal(at, "must be an object with \"url\" and \"weight\"") }
            for name in fields.keys where !["url", "weight", "name"].contains(name) {
                throw Refusal("\(at).\(name)", "unknown key; a variant has url, weight and name")
            }
            guard case .string(let url)? = fields["url"] else { throw Refusal("\(at).url", "is required") }
            if let problem = URLGrammar.httpURLProblem(url) { throw Refusal("\(at).url", problem) }
            guard case .number(let number)? = fields["weight"], number == number.rounded(), (0...Double(maximumWeight)).contains(number) else {
                throw Refusal("\(at).weight", "must be a whole number from 0 to \(maximumWeight)")
            }
            var name = String(UnicodeScalar(UInt8(ascii: "A") + UInt8(index)))
            if let given = fields["name"] {
                guard case .string(let text) = given, (1...32).contains(text.utf8.count),
                    text.utf8.allSatisfy({ ShortCode.isCodeByte($0) })
                else { throw Refusal("\(at).name", "must be 1 to 32 characters of A-Z, a-z, 0-9, '_' or '-'") }
                name = text
            }
            guard !variants.contains(where: { $0.name == name }) else { throw Refusal("\(at).name", "'\(name)' names another variant") }
            variants.append(LinkVariant(name: name, url: url, weight: Int(number)))
        }
        if !variants.isEmpty, variants.allSatisfy({ $0.weight == 0 }) { throw Refusal(key, "at least one variant needs a weight above 0") }
        return variants
    }

    public static func json(_ variants: [LinkVariant]) -> JSONValue {
        .array(variants.map { .object(["name": .string($0.name), "url": .string($0.url), "weight": .number(Double($0.weight))]) })
    }
}
