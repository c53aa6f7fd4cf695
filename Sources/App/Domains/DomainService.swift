public import Attribution
import Cryptography
import Foundation
public import StoreContracts
import Synchronization

/// Projects' own link domains: claims, and which project a request's Host belongs to.
public struct DomainService: Sendable {
    let store: any StoreBackend
    let map: DomainMap
    let clock: any Clock
    /// Empties the link cache when a removal deleted links.
    let linksRemoved: @Sendable () -> Void

    /// The names this server answers as itself (`public_url`'s host, `allowed_hosts`, the
    /// listening names): never a project's to claim. Set once the server knows them.
    public func reserveServerNames(_ names: @escaping @Sendable (String) -> Bool) { map.setServerNames(names) }

    /// The most domains one project may claim.
    public func limitClaims(perProject limit: Int) { map.setLimit(limit) }

    /// How many domains one project may claim: each is a certificate order and a probe, and a
    /// tenant's claims are the server's.
    public static let defaultLimitPerProject = 20

    /// Claims `name` for the project: `AppError.invalid` naming `domain` for a name that cannot be
    /// a host, is one of the server's own (`serverNames`) or is past the project's limit;
    /// `StoreError.conflict` when a project already has it.
    public func add(projectID: String, name: String) throws -> ProjectDomain {
        let domain: String
        switch DomainName.normalized(name) {
        case .success(let normalized): domain = normalized
        case .failure(let refusal): throw AppError.invalidField("domain", "'\(name)' \(refusal.reason)")
        }
        // The server's own names serve every project: a claim would hand them to one tenant.
        if map.isServerName(domain) {
            throw AppError.invalidField("domain", "'\(domain)' is this server's own host name (public_url, allowed_hosts or a listening name)")
        }
        let claimed = try store.domains.list(projectID: projectID)
        guard claimed.count < map.limitPerProject else {
            throw AppError.invalidField("domain", "the project has \(claimed.count) domains, the most one project may claim")
        }
        let now = clock.now()
        let claim = ProjectDomain(
            id: "dom_" + TimeOrderedID.secure(at: now).replacingOccurrences(of: "-", with: ""), projectID: projectID, domain: domain,
            createdAt: now)
        try store.domains.add(claim)
        map.invalidate()
        return claim
    }

    public func list(projectID: String) throws -> [ProjectDomain] { try store.domains.list(projectID: projectID) }

    /// Clears the long links taps made on the domain (the limit filled, or old ones no longer
    /// wanted); a long link tapped again is made anew. How many were deleted.
    public func clearLongLinks(id: String, projectID: String) throws -> Int {
        guard let claim = try store.domains.list(projectID: projectID).first(where: { $0.id == id }) else {
            throw AppError.notFound("no domain \(id)")
        }
        let deleted = try store.links.deleteLongLinks(projectID: projectID, domain: claim.domain)
        if deleted > 0 { linksRemoved() }
        return deleted
    }

    /// The project's links on the domain: what stops working when it is removed.
    public func linkCount(id: String, projectID: String) throws -> Int {
        guard let claim = try store.domains.list(projectID: projectID).first(where: { $0.id == id }) else {
            throw AppError.notFound("no domain \(id)")
        }
        return try linkCount(on: claim)
    }

    /// The claim's project's links on it (a list that has the claims asks this once each).
    public func linkCount(on claim: ProjectDomain) throws -> Int {
        try store.links.count(projectID: claim.projectID, domain: claim.domain, codePrefix: "")
    }

    /// Gives the name up, with the project's links on it. Refused (`StoreError.conflict`, naming
    /// how many) while links live there, unless `force`: removing a domain is one call, and it
    /// silently broke every link printed on it.
    public func remove(id: String, projectID: String, force: Bool = false) throws {
        let links = try linkCount(id: id, projectID: projectID)
        if links > 0, !force {
            throw StoreError.conflict(
                "\(links) link\(links == 1 ? "" : "s") live on this domain and stop working when it is removed (they are deleted with it); "
                    + "repeat with force to proceed")
        }
        guard try store.domains.remove(id: id, projectID: projectID) else { throw AppError.notFound("no domain \(id)") }
        map.invalidate()
        if links > 0 { linksRemoved() }
    }

    /// Each domain's certificate and attempts, by domain (the server's own certificates, `acme`).
    public func certificates() throws -> [String: DomainCertificateRecord] {
        Dictionary(try store.certificates.certificates().map { ($0.domain, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// What to answer an ACME HTTP-01 challenge for `token` with, while its order is open.
    public func challengeAnswer(token: String) throws -> String? { try store.certificates.challenge(token: token) }

    /// The claim of the host name `host` (lower-cased, without port), or nil when it is no
    /// project's domain. From memory after the first call.
    public func claim(ofHost host: String) throws -> ProjectDomain? { try map.domains()[host] }

    /// The project's domain names, from memory after the first call.
    public func names(ofProject projectID: String) throws -> [String] {
        try map.domains().values.filter { $0.projectID == projectID }.map(\.domain).sorted()
    }

    /// Whether any project has a domain: a server without any skips reading each request's Host.
    public func anyClaimed() throws -> Bool { try !map.domains().isEmpty }
}

/// Every project domain by name, loaded once and emptied when a commit changes them.
final class DomainMap: Sendable {
    private let loaded = Mutex<[String: ProjectDomain]?>(nil)
    private let load: @Sendable () throws -> [ProjectDomain]
    private let beforeBlocking: @Sendable () throws -> Void

    init(load: @escaping @Sendable () throws -> [ProjectDomain], beforeBlocking: @escaping @Sendable () throws -> Void) {
        self.load = load
        self.beforeBlocking = beforeBlocking
    }

    func domains() throws -> [String: ProjectDomain] {
        if let map = loaded.withLock({ $0 }) { return map }
        try beforeBlocking()
        let map = Dictionary(try load().map { ($0.domain, $0) }, uniquingKeysWith: { first, _ in first })
        loaded.withLock { $0 = map }
        return map
    }

    func invalidate() { loaded.withLock { $0 = nil } }

    private let policy = Mutex<(serverNames: @Sendable (String) -> Bool, limit: Int)>(({ _ in false }, DomainService.defaultLimitPerProject))
    func setServerNames(_ names: @escaping @Sendable (String) -> Bool) { policy.withLock { $0.serverNames = names } }
    func setLimit(_ limit: Int) { policy.withLock { $0.limit = limit } }
    func isServerName(_ name: String) -> Bool { policy.withLock { $0.serverNames }(name) }
    var limitPerProject: Int { policy.withLock { $0.limit } }
}
