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

    /// Claims `name` for the project: `AppError.invalid` naming `domain` for a name that cannot be
    /// a host, `StoreError.conflict` when a project already has it.
    public func add(projectID: String, name: String) throws -> ProjectDomain {
        let domain: String
        switch DomainName.normalized(name) {
        case .success(let normalized): domain = normalized
        case .failure(let refusal): throw AppError.invalidField("domain", "'\(name)' \(refusal.reason)")
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

    public func remove(id: String, projectID: String) throws {
        guard try store.domains.remove(id: id, projectID: projectID) else { throw AppError.notFound("no domain \(id)") }
        map.invalidate()
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
}
