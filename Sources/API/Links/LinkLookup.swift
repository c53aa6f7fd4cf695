import Attribution
import Foundation
import HTTP
import Store

/// Finds the link behind `/{code}` or `/{slug}/{code}` through the cache.
struct LinkLookup: Sendable {
    let services: Services

    /// The cached entry and its target, or nil when the code is unknown or the slug is not the
    /// link's template's.
    func find(code: String, slug: String?) throws -> (entry: LinkCache.Entry, target: LinkTarget)? {
        guard ShortCode.isValidCustom(code) || code.count == 8 else { return nil }
        let entry = try services.linkCache.entry(for: code) {
            try MoveToPool.unlessOffLoop()  // a miss reads the store: off the event loop
            guard let (link, clicks) = try services.links.find(shortCode: code),
                  let project = try services.projects.find(id: link.projectID) else { return nil }
            _ = services.clocks.clock(for: project)  // a test-mode project's clicks read its clock from now on
            let template = try link.templateID.flatMap { try services.templates.find(id: $0, projectID: link.projectID) }
            return (LinkTarget(link: link, template: template, project: project.settings), clicks)
        }
        guard let target = entry.target else { return nil }
        if let slug, target.templateSlug != slug { return nil }
        return (entry, target)
    }
}

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

/// What a click keeps of its URL's query, from items parsed once per request.
enum ClickQuery {
    /// UTM values of the query (`utm_source`, …).
    static func utm(_ queryItems: [(name: String, value: String)]) -> UTM {
        var map: [String: String] = [:]
        for item in queryItems where item.name.hasPrefix("utm_") {
            let key = String(item.name.dropFirst(4))
            if LinkTemplate.utmKeys.contains(key), !item.value.isEmpty, map[key] == nil { map[key] = item.value.prefix(characters: 256) }
        }
        return UTM(map)
    }

    /// Query parameters kept with a click: at most 50, values cut to 512 characters.
    static func kept(_ queryItems: [(name: String, value: String)]) -> [String: String] {
        var map: [String: String] = [:]
        for item in queryItems.prefix(50) where map[item.name] == nil { map[item.name.prefix(characters: 64)] = item.value.prefix(characters: 512) }
        return map
    }
}

enum Identifiers {
    static func newID() -> String { UUID().uuidString.lowercased() }

    static func isUUID(_ text: String) -> Bool { text.count == 36 && UUID(uuidString: text) != nil }

    /// 128 random bits as hex, for CSP nonces.
    static func nonce() -> String {
        var generator = SecureRandom()
        let high = generator.next(), low = generator.next()
        return String(unsafeUninitializedCapacity: 32) { text in
            for nibble in 0..<16 {
                let shift = UInt64(60 - 4 * nibble)
                text[nibble] = ByteText.hexDigits[Int(high >> shift & 0xF)]
                text[16 + nibble] = ByteText.hexDigits[Int(low >> shift & 0xF)]
            }
            return 32
        }
    }
}
