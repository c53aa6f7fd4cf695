/// What a Firebase Dynamic Link says beyond a plain link: its deep link, each platform's app and
/// fallback, the preview switch and the App Store analytics tokens. The same parameters come from
/// a long link's query (`https://<domain>/?link=…&apn=…`), a Takeout export's columns and the REST
/// API's `dynamicLinkInfo`. Google's "Create a Dynamic Link manually" names them.
public struct FDLOptions: Sendable, Equatable {
    /// The deep link the app receives (`link`), an http(s) URL.
    public var link: String
    public var androidPackage: String?
    public var androidFallback: String?
    public var androidMinimumVersion: String?
    public var iosBundleID: String?
    public var iosFallback: String?
    public var iosCustomScheme: String?
    public var iPadFallback: String?
    public var iPadBundleID: String?
    public var appStoreID: String?
    public var iosMinimumVersion: String?
    /// `efr=1`: straight to the app or store, without the preview page.
    public var skipPreview = false
    public var otherFallback: String?
    /// App Store Connect analytics tokens (`at`, `ct`, `mt`, `pt`), passed to the App Store URL.
    public var appStoreTokens: [String: String] = [:]

    public init(link: String) { self.link = link }

    /// The query parameter of each field, in the order Google lists them.
    public static let parameterNames = [
        "link", "apn", "afl", "amv", "ibi", "ifl", "ius", "ipfl", "ipbi", "isi", "imv", "efr", "ofl", "at", "ct", "mt", "pt",
    ]
    /// Parameters that must be http(s) URLs.
    static let urlParameters: Set<String> = ["link", "afl", "ifl", "ipfl", "ofl"]

    /// The options of a long link's (or an export row's) parameters, or the first problem, naming
    /// the parameter.
    public static func parse(_ parameters: [String: String]) -> Result<FDLOptions, Refusal> {
        guard let link = parameters["link"], !link.isEmpty else { return .failure(.init("link", "is required: the deep link the app receives")) }
        for name in urlParameters.sorted() {
            guard let value = parameters[name], !value.isEmpty else { continue }
            if let problem = URLGrammar.httpURLProblem(value) { return .failure(.init(name, problem)) }
        }
        if let efr = parameters["efr"], !["", "0", "1"].contains(efr) { return .failure(.init("efr", "must be 0 or 1")) }
        if let isi = parameters["isi"], !isi.isEmpty, !isi.allSatisfy(\.isASCIIDigit) {
            return .failure(.init("isi", "must be the App Store id's digits"))
        }
        if let scheme = parameters["ius"], !scheme.isEmpty, LinkTemplate.appLinkProblems(scheme: scheme, path: nil).first != nil {
            return .failure(.init("ius", "is not a usable URL scheme"))
        }
        // An app id becomes the app's URL scheme (`ibi` is FDL's default scheme): only an id's grammar.
        for name in ["apn", "ibi", "ipbi"] {
            if let id = parameters[name], !id.isEmpty, !ProjectSettings.isReverseDNS(id) || id.utf8.count > 255 {
                return .failure(.init(name, "must be an app id such as com.example.app"))
            }
        }
        func value(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }
        var options = FDLOptions(link: link)
        options.androidPackage = value("apn")
        options.androidFallback = value("afl")
        options.androidMinimumVersion = value("amv")
        options.iosBundleID = value("ibi")
        options.iosFallback = value("ifl")
        options.iosCustomScheme = value("ius")
        options.iPadFallback = value("ipfl")
        options.iPadBundleID = value("ipbi")
        options.appStoreID = value("isi")
        options.iosMinimumVersion = value("imv")
        options.skipPreview = value("efr") == "1"
        options.otherFallback = value("ofl")
        for token in ["at", "ct", "mt", "pt"] { if let text = value(token) { options.appStoreTokens[token] = text } }
        return .success(options)
    }

    /// A parameter that cannot be what FDL meant, and why.
    public struct Refusal: Error, Sendable, Equatable {
        public let problem: ValidationProblem
        init(_ key: String, _ message: String) { problem = ValidationProblem(key, message) }
    }

    /// The options as the parameters they came from (empty ones left out): stored, and shown.
    public var parameters: [String: String] {
        var out: [String: String] = ["link": link]
        out["apn"] = androidPackage
        out["afl"] = androidFallback
        out["amv"] = androidMinimumVersion
        out["ibi"] = iosBundleID
        out["ifl"] = iosFallback
        out["ius"] = iosCustomScheme
        out["ipfl"] = iPadFallback
        out["ipbi"] = iPadBundleID
        out["isi"] = appStoreID
        out["imv"] = iosMinimumVersion
        if skipPreview { out["efr"] = "1" }
        out["ofl"] = otherFallback
        out.merge(appStoreTokens) { first, _ in first }
        return out
    }

    /// The App Store page of `isi`, with the analytics tokens.
    public var appStoreURL: String? {
        guard let appStoreID else { return nil }
        let tokens = ["at", "ct", "mt", "pt"].compactMap { name in appStoreTokens[name].map { (name, $0) } }
        return URLQuery.appending(tokens, to: "https://apps.apple.com/app/id\(appStoreID)")
    }

    /// Where a tap from a device without the app goes, by FDL's rules: on iOS the iOS fallback,
    /// else the App Store when the link names an app (`ibi` and `isi`), else the deep link; on an
    /// iPad the iPad fallback first (and the iPad app's store page); on Android the Android
    /// fallback, else the Play Store page of `apn`, else the deep link; elsewhere `ofl`, else the
    /// deep link.
    public func destination(for platform: UserAgentInfo.Platform, iPad: Bool) -> String {
        switch platform {
        case .ios:
            if iPad, let iPadFallback { return iPadFallback }
            if let iosFallback { return iosFallback }
            if iPad ? (iPadBundleID ?? iosBundleID) != nil : iosBundleID != nil, let appStoreURL { return appStoreURL }
            return link
        case .android:
            if let androidFallback { return androidFallback }
            if let androidPackage { return "https://play.google.com/store/apps/details?id=\(URLQuery.encode(androidPackage))" }
            return link
        case .desktop, .bot:
            return otherFallback ?? link
        }
    }

    /// The app's own URL for the deep link, as FDL's apps were opened: the custom scheme (or the
    /// bundle id, FDL's default scheme) with `google/link/?deep_link_id=<link>`; nil without an iOS app.
    public var iosAppURL: String? {
        guard let scheme = iosCustomScheme ?? iosBundleID?.lowercased() else { return nil }
        return "\(scheme)://google/link/?deep_link_id=\(URLQuery.encode(link))"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
