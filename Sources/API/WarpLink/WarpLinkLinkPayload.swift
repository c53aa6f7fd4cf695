import Attribution
import Foundation
import HTTP
import JSON

/// `POST /v1/links`'s body: `destination_url` required; `ios_url` / `android_url` each either a
/// web or store URL (where that platform goes) or an app deep link (`myapp://p/1`, kept as the
/// link's scheme, path and parameters); `custom_params` an object of strings (numbers and booleans
/// are kept as their text).
struct WarpLinkLinkPayload {
    var destinationURL: String
    var platformURLs: (ios: String?, android: String?)
    var appLink: URLComponents?
    var customParams: [String: String]
    /// One of the project's own domains, where the link lives (attributiond's addition).
    var domain: String?

    /// The link's fields as this payload names them, for validation messages.
    static let fieldNames = [
        "web_url": "destination_url", "ios_url": "ios_url", "android_url": "android_url",
        "app_scheme": "ios_url", "deep_link_path": "ios_url", "domain": "domain",
    ]

    init(_ body: JSONFields) throws {
        destinationURL = try body.requiredString("destination_url", maxLength: 2048)
        domain = try body.string("domain", maxLength: 253)
        var platformURLs: (ios: String?, android: String?) = (nil, nil)
        var appLinks: [(key: String, url: URLComponents)] = []
        for key in ["ios_url", "android_url"] {
            guard let text = try body.string(key, maxLength: 2048), !text.isEmpty else { continue }
            guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased() else {
                throw HTTPError.invalidField(key, "must be an absolute URL")
            }
            if scheme == "http" || scheme == "https" {
                if key == "ios_url" { platformURLs.ios = text } else { platformURLs.android = text }
            } else {
                appLinks.append((key, url))
            }
        }
        // One deep link per link: both platforms' app links must agree.
        if appLinks.count == 2, appLinks[0].url != appLinks[1].url {
            throw HTTPError.invalidField("android_url", "must be the same app deep link as ios_url (a link keeps one deep link)")
        }
        self.platformURLs = platformURLs
        appLink = appLinks.first?.url
        var params: [String: String] = [:]
        for (name, value) in try body.object("custom_params")?.fields ?? [:] {
            guard params.count < 50 else { throw HTTPError.invalidField("custom_params", "must have at most 50 keys") }
            guard (1...64).contains(name.count) else { throw HTTPError.invalidField("custom_params", "keys must be 1 to 64 characters") }
            switch value {
            case .string(let text) where text.count <= 512: params[name] = text
            case .number(let number) where number.isFinite:
                params[name] = number.decimalText
            case .bool(let flag): params[name] = flag ? "true" : "false"
            default: throw HTTPError.invalidField("custom_params.\(name)", "must be a string of at most 512 characters, a number or a boolean")
            }
        }
        customParams = params
    }

    func apply(to link: inout Link) {
        link.webURL = destinationURL
        link.domain = domain
        link.iosURL = platformURLs.ios
        link.androidURL = platformURLs.android
        var parameters = customParams
        if let appLink {
            link.appScheme = appLink.scheme
            // `myapp://p/1`: the host is the path's first segment, as apps route it.
            let path = (appLink.host ?? "") + appLink.path
            link.deepLinkPath = path.isEmpty ? nil : path
            for item in appLink.queryItems ?? [] where parameters[item.name] == nil { parameters[item.name] = item.value ?? "" }
        }
        link.deepLinkParameters = parameters
    }
}
