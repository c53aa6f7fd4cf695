import Attribution
import StoreContracts

/// One import's rows as they are decided (an FDL export, a Branch CSV): each outcome counted and
/// kept (a created row only when `keepingCreatedRows`), the links to create or rewrite written
/// `LinkService.importBatchSize` at a time, one transaction each. A dry run lets each batch go
/// too: what it would write is counted, never held.
struct LinkImportLedger {
    let dryRun: Bool
    var keepingCreatedRows = true
    /// Writes one batch: links to create, links to rewrite.
    let write: ([Link], [Link]) throws -> Void
    private var rows: [LinkImportReport.RowOutcome] = []
    private var counts: [LinkImportReport.RowOutcome.Outcome: Int] = [:]
    private var creating: [Link] = []
    private var replacing: [Link] = []

    init(dryRun: Bool, keepingCreatedRows: Bool = true, write: @escaping ([Link], [Link]) throws -> Void) {
        self.dryRun = dryRun
        self.keepingCreatedRows = keepingCreatedRows
        self.write = write
    }

    mutating func note(
        _ line: Int, _ shortLink: String?, _ outcome: LinkImportReport.RowOutcome.Outcome, column: String? = nil, reason: String? = nil
    ) {
        counts[outcome, default: 0] += 1
        guard keepingCreatedRows || outcome != .created else { return }
        rows.append(.init(line: line, shortLink: shortLink, outcome: outcome, column: column, reason: reason))
    }

    mutating func create(_ link: Link, line: Int, shortLink: String?) throws {
        creating.append(link)
        note(line, shortLink, .created)
        if creating.count + replacing.count >= LinkService.importBatchSize { try flush() }
    }

    mutating func replace(_ link: Link, line: Int, shortLink: String?) throws {
        replacing.append(link)
        note(line, shortLink, .replaced)
        if creating.count + replacing.count >= LinkService.importBatchSize { try flush() }
    }

    /// Writes what is waiting, and gives the report.
    mutating func finish() throws -> LinkImportReport {
        try flush()
        return LinkImportReport(dryRun: dryRun, rows: rows, counts: counts)
    }

    private mutating func flush() throws {
        defer {
            creating.removeAll(keepingCapacity: true)
            replacing.removeAll(keepingCapacity: true)
        }
        guard !dryRun, !(creating.isEmpty && replacing.isEmpty) else { return }
        try write(creating, replacing)
    }
}

extension LinkService {
    /// `name` as the project's domain an import's links go on; refused unless it is one.
    func importDomain(_ name: String, projectID: String) throws -> String {
        guard case .success(let domain) = DomainName.normalized(name),
            try store.domains.list(projectID: projectID).contains(where: { $0.domain == domain })
        else { throw AppError.invalidField("domain", "'\(name.prefix(253))' is not one of the project's domains; add it first") }
        return domain
    }

    /// A ledger writing through the store, each written link's cached code forgotten.
    func importLedger(dryRun: Bool, keepingCreatedRows: Bool = true) -> LinkImportLedger {
        LinkImportLedger(dryRun: dryRun, keepingCreatedRows: keepingCreatedRows) { [store, cache] creating, replacing in
            try store.links.importBatch(creating: creating, replacing: replacing)
            for link in creating + replacing { cache.invalidate(code: link.shortCode) }
        }
    }
}
