import Foundation

/// Where a click goes, decided from the link, its template and the project's defaults
/// (links-and-clicks.md, "Respond by platform").
public struct LinkTarget: Sendable, Equatable {
    public var link: Link
    public var template: LinkTemplate?
    public var project: ProjectSettings

    public init(link: Link, template: LinkTemplate?, project: ProjectSettings) {
        self.link = link
        self.template = template
        self.project = project
    }

    // Missing values fall back to the template's, then the project's.
    public var iosURL: String? { link.iosURL ?? template?.iosURL ?? project.iosStoreURL }
    public var androidURL: String? { link.androidURL ?? template?.androidURL ?? project.androidStoreURL }
    public var webURL: String? { link.webURL ?? template?.webURL ?? project.webURL ?? link.originalURL }
    public var appScheme: String? { link.appScheme ?? template?.appScheme }
    public var deepLinkPath: String? { link.deepLinkPath ?? template?.deepLinkPath }
    public var deepLinkParameters: [String: String] {
        (template?.deepLinkParameters ?? [:]).merging(link.deepLinkParameters) { _, linkValue in linkValue }
    }
    public var utm: UTM { UTM(template?.utm ?? [:]).overridden(by: link.utm) }
    public var attributionWindowHours: Int {
        link.attributionWindowHours ?? template?.attributionWindowHours ?? project.attributionWindowHours
    }
    public var templateSlug: String? { template?.slug }

    /// `scheme://path?params` for opening the installed app, if the link has a scheme.
    public var appURL: String? {
        guard let scheme = appScheme else { return nil }
        var path = deepLinkPath ?? ""
        while path.hasPrefix("/") { path.removeFirst() }
        let items = deepLinkParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return URLQuery.appending(items, to: "\(scheme)://\(path)")
    }

    /// The URL that opens the app at the link's deep link without a custom scheme: the public
    /// `base` (whose every path the app claims through apple-app-site-association and
    /// assetlinks.json) with the deep-link path and parameters, or the short link itself when the
    /// link has no path.
    public func universalLink(base: String) -> String {
        var path = deepLinkPath ?? ""
        while path.hasPrefix("/") { path.removeFirst() }
        guard !path.isEmpty else {
            return templateSlug.map { "\(base)/\($0)/\(link.shortCode)" } ?? "\(base)/\(link.shortCode)"
        }
        let items = deepLinkParameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return URLQuery.appending(items, to: "\(base)/\(path)")
    }

    /// What the app is handed to open: `scheme://path?params` when the link has a scheme, else
    /// its universal link under `base`.
    /// An FDL link's app receives its `link` parameter, as FDL's SDK handed it over.
    public func deepLink(base: String) -> String { link.fdl?.link ?? appURL ?? universalLink(base: base) }

    public enum Response: Sendable, Equatable {
        /// The HTML page that reports browser signals, tries the app, then goes to the store.
        case interstitial(destination: String, appURL: String?)
        case redirect(String)
        /// Open Graph HTML for crawlers and link previews, no redirect.
        case preview
        /// The link has nowhere to send this platform.
        case noDestination
    }

    /// The response for a click from `platform` whose id is `clickID`, with `utm` (the link's,
    /// overridden by the click URL's) added to the destination.
    /// - Parameter iPad: the tap came from an iPad (FDL links have iPad destinations of their own).
    /// - Parameter routed: where the link's rules or variants send this tap (`route`), in place
    ///   of the link's own destination for every platform (the app's deep link is still tried first).
    public func response(for platform: UserAgentInfo.Platform, clickID: String, utm: UTM, iPad: Bool = false, routed: String? = nil) -> Response {
        if let routed, link.fdl == nil {
            guard platform != .bot else { return .preview }
            let decorated = decorate(routed, clickID: clickID, utm: utm)
            return platform == .desktop ? .redirect(decorated) : .interstitial(destination: decorated, appURL: appURL)
        }
        if let fdl = link.fdl {
            guard platform != .bot else { return .preview }
            let destination = decorate(fdl.destination(for: platform, iPad: iPad), clickID: clickID, utm: utm)
            if platform == .desktop || fdl.skipPreview { return .redirect(destination) }
            return .interstitial(destination: destination, appURL: platform == .ios ? fdl.iosAppURL : nil)
        }
        let destination: String?
        switch platform {
        case .bot: return .preview
        case .ios: destination = iosURL ?? webURL
        case .android: destination = androidURL ?? webURL
        case .desktop: destination = webURL ?? iosURL ?? androidURL
        }
        guard let destination else { return .noDestination }
        let decorated = decorate(destination, clickID: clickID, utm: utm)
        return platform == .desktop ? .redirect(decorated) : .interstitial(destination: decorated, appURL: appURL)
    }

    /// Where the link's rules, then its A/B split, send `tap` from `visitor` (a click's network
    /// key): the first rule that holds, else the visitor's variant; neither: the link's own
    /// destinations. The variant is named only when its URL is the one used.
    public func route(_ tap: Tap, visitor: String) -> TapRoute {
        if let rule = link.rules.first(matching: tap) { return TapRoute(url: rule.url, rule: rule) }
        guard let variant = link.variants.pick(visitor: visitor, linkID: link.id) else { return TapRoute() }
        return TapRoute(url: variant.url, variant: variant)
    }

    func decorate(_ url: String, clickID: String, utm: UTM) -> String {
        var items = utm.queryItems
        if link.appendClickID { items.append(("click_id", clickID)) }
        // The Play Install Referrer hands this back to the app, making the match deterministic:
        // Linkrunner clients send it whole (we read `click_id`); WarpLink's Android SDK reads
        // `utm_content` as the link's id when `utm_source` is `warplink`. Otherwise it carries the
        // link's own UTM values, so Play Console credits the team's source, not a tool's.
        if URLQuery.host(of: url) == "play.google.com" {
            let referrer: [(String, String)]
            switch project.playReferrer {
            case .warplink: referrer = [("utm_source", "warplink"), ("utm_content", link.id), ("click_id", clickID)]
            case .utm: referrer = utm.queryItems + [("click_id", clickID)]
            }
            items.append(("referrer", referrer.map { "\(URLQuery.encode($0.0))=\(URLQuery.encode($0.1))" }.joined(separator: "&")))
        }
        return URLQuery.appending(items, to: url)
    }
}

/// What a link's rules and A/B split decided for one tap (`LinkTarget.route`).
public struct TapRoute: Sendable, Equatable {
    /// In place of the link's own destination; nil: the link's.
    public var url: String?
    public var rule: LinkRule?
    public var variant: LinkVariant?

    public init(url: String? = nil, rule: LinkRule? = nil, variant: LinkVariant? = nil) {
        self.url = url
        self.rule = rule
        self.variant = variant
    }

    /// A rule written for in-app browsers decides where their taps go: they are not led out.
    public var keepsInAppBrowser: Bool { rule?.when.inAppBrowsers != nil }
}

public enum URLQuery {
    /// RFC 3986 unreserved characters stay; everything else is percent-encoded.
    public static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(UnicodeScalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return result
    }

    /// Adds query items before any fragment, after an existing query if there is one.
    public static func appending(_ items: [(String, String)], to url: String) -> String {
        guard !items.isEmpty else { return url }
        var base = Substring(url)
        var fragment: Substring = ""
        if let hash = url.firstIndex(of: "#") {
            base = url[..<hash]
            fragment = url[hash...]
        }
        // `https://host?x` is legal but unusual; give a bare web host its root path. Not an app's
        // own scheme: there the first segment is the route (`shop://offer?code=1`, as
        // `shop://product/7?color=red` has no `/` before its `?` either), which app routers match.
        if let colon = base.firstIndex(of: ":"), base[colon...].hasPrefix("://"),
            ["http", "https"].contains(base[..<colon].lowercased()),
            !base[base.index(colon, offsetBy: 3)...].contains(where: { $0 == "/" || $0 == "?" })
        {
            base += "/"
        }
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        let query = items.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
        return "\(base)\(separator)\(query)\(fragment)"
    }

    /// The lower-cased host of an http(s) URL.
    public static func host(of url: String) -> String? {
        let bytes = Array(url.utf8)
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon + 2 < bytes.count,
            bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        var authority = bytes[(colon + 3)...].prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { authority = authority[(at + 1)...] }
        if let port = authority.lastIndex(of: UInt8(ascii: ":")), authority.first != UInt8(ascii: "[") { authority = authority[..<port] }
        return String(decoding: authority.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
