import Foundation

/// Where a long link (`https://<domain>/?link=…`) may send people. Anyone can write a long link on
/// a project's domain, so a long link is an open redirect unless its URLs are held to hosts the
/// project vouches for: its own domains, its web URL's host, and the hosts it lists (FDL's
/// allow-list; `*.shop.example` covers the subdomains, not `shop.example` itself).
public enum LongLinkPolicy {
    /// `shop.example` or `*.shop.example`, in DNS's form.
    public static func isHostPattern(_ text: String) -> Bool {
        let name = text.hasPrefix("*.") ? String(text.dropFirst(2)) : text
        guard case .success(let normalized) = DomainName.normalized(name) else { return false }
        return normalized == name.lowercased()
    }

    /// Why `url` is not a destination the project allows, or nil when it is one. A URL with user
    /// information (`https://shop.example@evil.example/`) is never one: people read the host wrong.
    public static func problem(_ url: String, allowedHosts: [String], patterns: [String]) -> String? {
        if let problem = URLGrammar.httpURLProblem(url) { return problem }
        guard let authority = authority(of: url), !authority.contains("@") else {
            return "may not carry a user name or password before its host"
        }
        guard let host = URLQuery.host(of: url).map({ $0.hasSuffix(".") ? String($0.dropLast()) : $0 }) else {
            return "must be an absolute http(s) URL"
        }
        if allowedHosts.contains(host) { return nil }
        for pattern in patterns {
            if pattern.hasPrefix("*.") ? host.hasSuffix(pattern.dropFirst(1)) : host == pattern { return nil }
        }
        return "'\(host)' is not a host this project's long links may send people to (its domains, its web_url's host or long_link_hosts)"
    }

    private static func authority(of url: String) -> Substring? {
        guard let start = url.range(of: "://")?.upperBound else { return nil }
        let rest = url[start...]
        return rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    }
}
