import Attribution
import Foundation
import HTTP
import JSON

/// `POST /v1/url`'s body as Branch's SDKs send it (`getShortURL`, `generateShortUrl`, the Web
/// SDK's `link()`): the link's `data` (an object; the Web SDK sends it as JSON text), its
/// analytics tags (`channel`, `feature`, `campaign`, `stage`, `tags`) and an optional `alias`.
/// `data`'s Branch keys fill our link's fields (`BranchLinkData.fieldNames`); its other keys are
/// the link's deep-link parameters, numbers and booleans kept as their text.
struct BranchLinkPayload {
    static let maximumParameters = 50
    var data: [String: JSONValue]
    var alias: String?
    var utm: UTM
    var tags: [String]

    init(_ body: JSONFields) throws {
        switch body.fields["data"] {
        case nil, .null?: data = [:]
        case .object(let object)?: data = object
        case .string(let text)?:
            guard text.utf8.count <= 65_536, case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
                throw HTTPError.invalidField("data", "must be a JSON object (or its text) of at most 64 KB")
            }
            data = object
        default: throw HTTPError.invalidField("data", "must be a JSON object")
        }
        alias = try body.string("alias", maxLength: 128).flatMap { $0.isEmpty ? nil : $0 }
        utm = UTM()
        utm.source = try body.string("channel", maxLength: 256)
        utm.medium = try body.string("feature", maxLength: 256)
        utm.campaign = try body.string("campaign", maxLength: 256)
        utm.content = try body.string("stage", maxLength: 256)
        switch body.fields["tags"] {
        case nil, .null?: tags = []
        case .array(let values)?:
            tags = try values.prefix(20).map { value in
                guard case .string(let tag) = value, tag.count <= 64 else {
                    throw HTTPError.invalidField("tags", "must be strings of at most 64 characters")
                }
                return tag
            }
        default: throw HTTPError.invalidField("tags", "must be an array of strings")
        }
        if !tags.isEmpty { utm.term = tags.joined(separator: ",") }
        _ = try body.integer("type")
        _ = try body.integer("duration")
    }

    func apply(to link: inout Link) throws {
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
            guard text.count <= 2048 else { throw HTTPError.invalidField("data.\(key.prefix(64))", "must be at most 2048 characters") }
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
                if key.hasPrefix("+") || key == "~id" || key == "~referring_link" { continue }
                guard parameters.count < Self.maximumParameters else {
                    throw HTTPError.invalidField("data", "must have at most \(Self.maximumParameters) keys of its own")
                }
                guard (1...64).contains(key.count) else { throw HTTPError.invalidField("data", "keys must be 1 to 64 characters") }
                parameters[key] = text
            }
        }
        link.deepLinkParameters = parameters
        // A `~` key of `data` names a tag the body may also give; the body's wins, as Branch's does.
        link.utm = dataUTM.overridden(by: utm)
    }

    /// The link's fields as this payload names them, for validation messages.
    static let fieldNames = [
        "web_url": "data.$fallback_url", "ios_url": "data.$ios_url", "android_url": "data.$android_url",
        "deep_link_path": "data.$deeplink_path", "short_code": "alias", "og.title": "data.$og_title", "og.image": "data.$og_image_url",
    ]
}
