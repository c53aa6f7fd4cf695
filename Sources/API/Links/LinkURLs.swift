import HTTP

/// The public URL of links: the configured `public_url`, or the scheme and an accepted Host of
/// the request (`PublicHosts`).
public enum LinkURLs {
    static func base(for request: HTTPRequest, services: Services) -> String {
        if let configured = services.publicURL { return configured }
        return "\(services.clientIP.scheme(of: request))://\(services.publicHosts.host(forHeader: request.headers["Host"]))"
    }

    /// The link's URL under `base` (no trailing slash): the one place a link URL is put together,
    /// for the APIs and the command line.
    public static func url(base: String, shortCode: String, templateSlug: String?) -> String {
        if let templateSlug { return "\(base)/\(templateSlug)/\(shortCode)" }
        return "\(base)/\(shortCode)"
    }
}
