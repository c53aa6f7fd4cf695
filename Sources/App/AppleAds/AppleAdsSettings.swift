import Attribution

/// Where AdServices tokens are exchanged and how soon a "not yet" (404) is asked again
/// (config `apple_ads.url`, `apple_ads.retry_seconds`).
public struct AppleAdsSettings: Sendable {
    public static let appleURL = "https://api-adservices.apple.com/api/v1/"
    public static let appleOAuthURL = "https://appleid.apple.com/auth/oauth2/token"
    public static let appleAPIURL = "https://api.searchads.apple.com/api/v5/"

    public var url: String
    /// Apple: retry a 404 every 5 s, at most 3 times; tests make it 1.
    public var retrySeconds: Double
    /// The Campaign Management API's token endpoint and base URL (for names; tests point them at
    /// a fake).
    public var oauthURL: String
    public var apiURL: String

    public init(
        url: String = AppleAdsSettings.appleURL, retrySeconds: Double = 5, oauthURL: String = AppleAdsSettings.appleOAuthURL,
        apiURL: String = AppleAdsSettings.appleAPIURL
    ) {
        self.url = url
        self.retrySeconds = retrySeconds
        self.oauthURL = oauthURL
        self.apiURL = Self.directory(apiURL)
    }

    /// A base URL that paths are appended to: with its trailing slash.
    public static func directory(_ url: String) -> String { url.hasSuffix("/") ? url : url + "/" }
}

/// An AdServices token as the SDKs send it: base64 text of at most 4 KB. Anything else is no token
/// (ignored for attribution, never a failed request).
public enum AppleAdsTokenText {
    public static let maximumLength = 4096

    public static func valid(_ text: String?) -> String? {
        guard let text = text?.trimmingWhitespace(), !text.isEmpty, text.utf8.count <= maximumLength else { return nil }
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "="): padding += 1
            case _ where padding > 0: return nil  // '=' only at the end
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"):
                continue
            default: return nil
            }
        }
        guard padding <= 2, text.utf8.count % 4 == 0 else { return nil }
        return text
    }
}
