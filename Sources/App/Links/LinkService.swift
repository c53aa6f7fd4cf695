public import Attribution
import Foundation
import StoreContracts

/// Links and templates for every API and the command line: creation, changes, and the click
/// path's lookup by short code, keeping the link cache right.
public struct LinkService: Sendable {
    let store: any StoreBackend
    let cache: LinkCache
    let clocks: ProjectClocks
    let beforeBlocking: @Sendable () throws -> Void

    /// - Parameter fieldNames: the request's names for the link's fields, where they differ from
    ///   the admin API's snake_case ones, so that a refusal names what the client sent.
    public func create(_ link: Link, codeIsCustom: Bool, fieldNames: [String: String] = [:]) throws -> Link {
        var link = link
        if !codeIsCustom { link.shortCode = ShortCode.generate() }
        try AppError.throwIfAny(link.validate().map { $0.renamed(fieldNames) })
        link.domain = try projectDomain(of: link, fieldNames: fieldNames)
        let created = try store.links.create(link, codeIsCustom: codeIsCustom)
        cache.invalidate(code: created.shortCode)
        return created
    }

    public func update(_ link: Link, previousCode: String, fieldNames: [String: String] = [:]) throws -> Link {
        try AppError.throwIfAny(link.validate().map { $0.renamed(fieldNames) })
        var link = link
        link.domain = try projectDomain(of: link, fieldNames: fieldNames)
        guard let updated = try store.links.update(link) else { throw AppError.notFound("no link \(link.id)") }
        cache.invalidate(code: previousCode)
        cache.invalidate(code: updated.shortCode)
        return updated
    }

    public func delete(id: String, projectID: String) throws {
        let link = try existing(id: id, projectID: projectID)
        _ = try store.links.delete(id: id, projectID: projectID)
        cache.invalidate(code: link.shortCode)
    }

    /// The link's domain as stored (DNS's form), which must be one of its project's domains.
    private func projectDomain(of link: Link, fieldNames: [String: String]) throws -> String? {
        guard let name = link.domain else { return nil }
        let key = fieldNames["domain"] ?? "domain"
        guard case .success(let domain) = DomainName.normalized(name) else { throw AppError.invalidField(key, "'\(name)' is not a domain name") }
        guard try store.domains.list(projectID: link.projectID).contains(where: { $0.domain == domain }) else {
            throw AppError.invalidField(key, "'\(domain)' is not one of the project's domains; add it first")
        }
        return domain
    }

    /// The link, or `AppError.notFound`.
    public func existing(id: String, projectID: String) throws -> Link {
        guard let link = try store.links.find(id: id, projectID: projectID) else { throw AppError.notFound("no link \(id)") }
        return link
    }

    public func list(projectID: String, limit: Int, offset: Int = 0) throws -> [Link] {
        try store.links.list(projectID: projectID, limit: limit, offset: offset)
    }

    /// The link the same external user already has with the same options (LinkForty dedupe).
    public func search(projectID: String, text: String, limit: Int, offset: Int = 0) throws -> [Link] {
        try store.links.search(projectID: projectID, text: text, limit: limit, offset: offset)
    }

    /// How many of the project's links on `domain` have a code starting with `prefix` (the long
    /// links a domain has made, `fdl…`).
    public func count(projectID: String, domain: String, codePrefix prefix: String) throws -> Int {
        try store.links.count(projectID: projectID, domain: domain, codePrefix: prefix)
    }

    public func duplicate(projectID: String, externalUserID: String, optionsHash: String) throws -> Link? {
        try store.links.findDuplicate(projectID: projectID, externalUserID: externalUserID, optionsHash: optionsHash)
    }

    /// Every link of every project (the start-up audit).
    public func forEach(_ body: (Link) throws -> Void) throws { try store.links.forEach(body) }

    /// The link behind `/{code}` or `/{slug}/{code}` through the cache, with its entry's click
    /// counter; nil when the code is unknown or the slug is not the link's template's.
    /// - Parameter host: the project domain the request came to: its links, then its project's
    ///   links with no domain; nil (any other Host): the links with no domain.
    public func resolve(code: String, slug: String?, on host: ProjectDomain? = nil) throws -> (entry: LinkCache.Entry, target: LinkTarget)? {
        guard ShortCode.isValidCustom(code) || code.count == 8 else { return nil }
        if let host {
            // Only the project that claims the name now: links left by a project that gave it up
            // (before removal took them along) never answer for the next claimant.
            if let found = try resolve(code: code, slug: slug, domain: host.domain), found.target.link.projectID == host.projectID {
                return found
            }
            guard let found = try resolve(code: code, slug: slug, domain: nil), found.target.link.projectID == host.projectID else { return nil }
            return found
        }
        return try resolve(code: code, slug: slug, domain: nil)
    }

    /// The link an app-side open names (an SDK's resolve), looked up as a tap would but only among
    /// `projectID`'s links: on `host` when it is one of the project's domains, its links there and
    /// then the project's links without a domain; else the project's links without a domain, then
    /// its links on each of `projectDomains` (the SDK did not say which domain it was opened on).
    public func resolve(
        code: String, slug: String?, inProject projectID: String, on host: ProjectDomain?, projectDomains: [String]
    ) throws -> (entry: LinkCache.Entry, target: LinkTarget)? {
        guard ShortCode.isValidCustom(code) || code.count == 8 else { return nil }
        if let host, host.projectID == projectID { return try resolve(code: code, slug: slug, on: host) }
        for domain in [nil] + projectDomains.map(Optional.some) {
            if let found = try resolve(code: code, slug: slug, domain: domain), found.target.link.projectID == projectID { return found }
        }
        return nil
    }

    private func resolve(code: String, slug: String?, domain: String?) throws -> (entry: LinkCache.Entry, target: LinkTarget)? {
        let entry = try cache.entry(for: code, domain: domain ?? "") {
            try beforeBlocking()  // a miss reads the store
            guard let (link, clicks) = try store.links.find(shortCode: code, domain: domain),
                let project = try store.projects.find(id: link.projectID)
            else { return nil }
            _ = clocks.clock(for: project)  // a test-mode project's clicks read its clock from now on
            let template = try link.templateID.flatMap { try store.templates.find(id: $0, projectID: link.projectID) }
            return (LinkTarget(link: link, template: template, project: project.settings), clicks)
        }
        guard let target = entry.target else { return nil }
        if let slug, target.templateSlug != slug { return nil }
        return (entry, target)
    }

    /// A link as clicks and installs see it, with its template and project settings.
    public func target(linkID: String, project: Project) throws -> LinkTarget? {
        guard let link = try store.links.find(id: linkID, projectID: project.id) else { return nil }
        return LinkTarget(link: link, template: try template(of: link), project: project.settings)
    }

    public func template(of link: Link) throws -> LinkTemplate? {
        try link.templateID.flatMap { try store.templates.find(id: $0, projectID: link.projectID) }
    }

    // MARK: Templates

    public func createTemplate(_ template: LinkTemplate) throws -> LinkTemplate { try store.templates.create(template) }

    public func templates(projectID: String) throws -> [LinkTemplate] { try store.templates.list(projectID: projectID) }

    /// The project's templates by id (to show many links with theirs).
    public func templatesByID(projectID: String) throws -> [String: LinkTemplate] {
        Dictionary(uniqueKeysWithValues: try templates(projectID: projectID).map { ($0.id, $0) })
    }

    public func mostRecentTemplate(projectID: String) throws -> LinkTemplate? { try store.templates.mostRecent(projectID: projectID) }

    /// The template a link names by id or slug; `AppError.invalid` naming `key` when the project
    /// has none such.
    public func template(id: String?, slug: String?, projectID: String, key: String) throws -> LinkTemplate? {
        if let id {
            guard let template = try store.templates.find(id: id, projectID: projectID) else {
                throw AppError.invalidField(key, "the project has no template \(id)")
            }
            return template
        }
        if let slug {
            guard let template = try store.templates.find(slug: slug, projectID: projectID) else {
                throw AppError.invalidField(key, "the project has no template with slug '\(slug)'")
            }
            return template
        }
        return nil
    }

    /// Empties the click path's cache (tests that change rows underneath it).
    func invalidateCache() { cache.invalidateAll() }
}
