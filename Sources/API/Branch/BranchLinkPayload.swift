import Attribution
import Foundation
import HTTP
import JSON

/// `POST /v1/url`'s body as Branch's SDKs send it (`getShortURL`, `generateShortUrl`, the Web
/// SDK's `link()`): the link's `data` (an object; the Web SDK sends it as JSON text), its
/// analytics tags (`channel`, `feature`, `campaign`, `stage`, `tags`) and an optional `alias`.
/// `data` fills the link's fields as `BranchLinkFields` maps them.
struct BranchLinkPayload {
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
        if let problem = BranchLinkFields.apply(data, utm: utm, to: &link) { throw HTTPError.invalidField(problem.key, problem.message) }
    }

    /// The link's fields as this payload names them, for validation messages.
    static let fieldNames = [
        "web_url": "data.$fallback_url", "ios_url": "data.$ios_url", "android_url": "data.$android_url",
        "deep_link_path": "data.$deeplink_path", "short_code": "alias", "og.title": "data.$og_title", "og.image": "data.$og_image_url",
    ]
}
