public import JSON

/// A Branch link's `data` as our link's fields (docs/sdk-apis.md, "Branch"): `$deeplink_path`,
/// `$ios_url`, `$android_url`, `$fallback_url` / `$desktop_url`, `$og_*` and the `~` analytics
/// tags are the link's own fields; every other key is one of its deep-link parameters, numbers
/// and booleans kept as their text. One mapping for the SDK's `POST /v1/url` and for imports.
public enum BranchLinkFields {
    public static let maximumParameters = 50
    public static let maximumValueLength = 2048

    /// Fills `link` from `data`, the tags given beside it (`utm`) winning over `data`'s `~` keys
    /// as Branch's do; the first problem, naming `data.<key>`, when a value cannot be kept.
    public static func apply(_ data: [String: JSONValue], utm: UTM, to link: inout Link) -> ValidationProblem? {
        var parameters: [String: String] = [:]
        var dataUTM = UTM()
        for (key, value) in data.sorted(by: { $0.key < $1.key }) {
            let text: String
            switch value {
            case .string(let string): text = string
            case .number(let number) where number.isFinite: text = number.decimalText
            case .bool(let flag): text = flag ? "true" : "false"
            case .null: continue
            default: text = String(decoding: value.serialized(), as: UTF8.self)
            }
            guard text.count <= maximumValueLength else {
                return ValidationProblem("data.\(key.prefix(64))", "must be at most \(maximumValueLength) characters")
            }
            switch key {
            case "$deeplink_path": link.deepLinkPath = text
            case "$fallback_url", "$desktop_url": link.webURL = link.webURL ?? text
            case "$ios_url": link.iosURL = text
            case "$android_url": link.androidURL = text
            case "$og_title": link.og.title = text
            case "$og_description": link.og.description = text
            case "$og_image_url": link.og.image = text
            case "~channel": dataUTM.source = text
            case "~feature": dataUTM.medium = text
            case "~campaign": dataUTM.campaign = text
            case "~stage": dataUTM.content = text
            default:
                // Branch's own markers of a session are not the link's.
                if key.hasPrefix("+") || key == "~id" || key == "~referring_link" || key == "~tags" { continue }
                guard parameters.count < maximumParameters else {
                    return ValidationProblem("data", "must have at most \(maximumParameters) keys of its own")
                }
                guard (1...64).contains(key.count) else { return ValidationProblem("data", "keys must be 1 to 64 characters") }
                parameters[key] = text
            }
        }
        link.deepLinkParameters = parameters
        link.utm = dataUTM.overridden(by: utm)
        return nil
    }
}
