import Attribution
import HTTP

/// The public URL of links: the configured `public_url`, or the scheme and an accepted Host of
/// the request (`PublicHosts`).
public enum LinkURLs {
    static func base(for request: HTTPRequest, services: Services) -> String {
        // A project's own domain is its links' base (served over HTTPS in front of the server). The
        // click and QR routes have read the domain map before (a miss moves them off the loop).
        if let claim = try? ProjectHosts.claim(of: request, services: services) { return "https://\(claim.domain)" }
        if let configured = services.publicURL { return configured }
        return "\(services.clientIP.scheme(of: request))://\(services.publicHosts.host(forHeader: request.headers["Host"]))"
    }

    /// The base of `link`'s URLs: its domain's when it has one, else `base` (the request's).
    static func base(of link: Link, otherwise base: String) -> String { link.domain.map { "https://\($0)" } ?? base }

    /// The link's URL under `base` (no trailing slash): the one place a link URL is put together,
    /// for the APIs and the command line.
    public static func url(base: String, shortCode: String, templateSlug: String?) -> String {
        if let templateSlug { return "\(base)/\(templateSlug)/\(shortCode)" }
        return "\(base)/\(shortCode)"
    }
}
