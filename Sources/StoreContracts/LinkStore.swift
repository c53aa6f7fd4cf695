public import Attribution

/// Short links. Codes are unique per domain (a click finds its link by code and domain).
public protocol LinkStore: Sendable {
    /// Throws `StoreError.conflict` when a custom code is taken; a generated code is retried.
    func create(_ link: Link, codeIsCustom: Bool) throws -> Link
    func update(_ link: Link) throws -> Link?
    func delete(id: String, projectID: String) throws -> Bool
    /// Stores `creating` and rewrites `replacing` (by id) in one transaction: all or none.
    func importBatch(creating: [Link], replacing: [Link]) throws
    func find(id: String, projectID: String) throws -> Link?
    /// The link and how many countable clicks it has had (for `max_clicks`).
    func find(shortCode: String, domain: String?) throws -> (link: Link, clicks: Int)?
    func list(projectID: String, limit: Int, offset: Int) throws -> [Link]
    func search(projectID: String, text: String, limit: Int, offset: Int) throws -> [Link]
    /// Every link of every project, in batches (the start-up audit).
    func forEach(batchSize: Int, _ body: (Link) throws -> Void) throws
    func findDuplicate(projectID: String, externalUserID: String, optionsHash: String) throws -> Link?
    /// How many of the project's links on `domain` have a code starting with `prefix`.
    func count(projectID: String, domain: String, codePrefix prefix: String) throws -> Int
    /// Deletes the long links taps made on `domain` (FDL options, a derived `fdl…` code); how many.
    func deleteLongLinks(projectID: String, domain: String) throws -> Int
}

extension LinkStore {
    public func list(projectID: String, limit: Int = 100) throws -> [Link] { try list(projectID: projectID, limit: limit, offset: 0) }
    public func forEach(_ body: (Link) throws -> Void) throws { try forEach(batchSize: 1000, body) }
}

/// Link templates (shared settings and a URL slug).
public protocol TemplateStore: Sendable {
    func create(_ template: LinkTemplate) throws -> LinkTemplate
    func find(id: String, projectID: String) throws -> LinkTemplate?
    func find(slug: String, projectID: String) throws -> LinkTemplate?
    func mostRecent(projectID: String) throws -> LinkTemplate?
    func list(projectID: String) throws -> [LinkTemplate]
}
