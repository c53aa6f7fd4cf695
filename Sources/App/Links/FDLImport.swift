public import Attribution
import Foundation
import StoreContracts

/// What an import of a Firebase Dynamic Links export did (or, in a dry run, would do), row by row.
public struct FDLImportReport: Sendable {
    public struct RowOutcome: Sendable {
        public enum Outcome: String, Sendable { case created, skipped, conflict, replaced, refused }
        public let line: Int
        public let shortLink: String?
        public let outcome: Outcome
        /// For a refusal, the column at fault.
        public let column: String?
        public let reason: String?
    }

    public let dryRun: Bool
    public let rows: [RowOutcome]

    public func count(_ outcome: RowOutcome.Outcome) -> Int { rows.lazy.filter { $0.outcome == outcome }.count }
}

extension LinkService {
    /// Rows written per transaction: a bad batch (a code taken meanwhile) stores none of its rows.
    static let importBatchSize = 500

    /// Imports a Takeout export of FDL links as links on `domain` (one of the project's): each row
    /// created, skipped (the same link is already there: a re-run changes nothing), a conflict (the
    /// code is another link's; rewritten only with `replace`), or refused with its reason. A file
    /// that cannot be read changes nothing; a dry run writes nothing.
    public func importFDL(projectID: String, domain name: String, csv: [UInt8], dryRun: Bool, replace: Bool, now: Timestamp) throws -> FDLImportReport
    {
        guard case .success(let domain) = DomainName.normalized(name),
            try store.domains.list(projectID: projectID).contains(where: { $0.domain == domain })
        else { throw AppError.invalidField("domain", "'\(name.prefix(253))' is not one of the project's domains; add it first") }
        let rows: [Result<FDLExport.Row, FDLExport.Refusal>]
        do {
            rows = try FDLExport.rows(csv, domain: domain)
        } catch {
            throw AppError.invalidField("file", error.reason)
        }
        var outcomes: [FDLImportReport.RowOutcome] = []
        var creating: [Link] = []
        var replacing: [Link] = []
        var seen: [String: Int] = [:]
        func outcome(_ line: Int, _ shortLink: String?, _ outcome: FDLImportReport.RowOutcome.Outcome, column: String? = nil, reason: String? = nil) {
            outcomes.append(.init(line: line, shortLink: shortLink, outcome: outcome, column: column, reason: reason))
        }
        func flush() throws {
            guard !dryRun, !(creating.isEmpty && replacing.isEmpty) else { return }
            try store.links.importBatch(creating: creating, replacing: replacing)
            for link in creating + replacing { cache.invalidate(code: link.shortCode) }
            creating.removeAll()
            replacing.removeAll()
        }
        for result in rows {
            let row: FDLExport.Row
            switch result {
            case .failure(let refusal):
                outcome(refusal.line, refusal.shortLink, .refused, column: refusal.column, reason: refusal.reason)
                continue
            case .success(let parsed): row = parsed
            }
            if let first = seen[row.code] {
                outcome(row.line, row.shortLink, .refused, column: "Short link", reason: "the same short link is on line \(first) of the file")
                continue
            }
            seen[row.code] = row.line
            var link = Link(
                id: UUID().uuidString.lowercased(), projectID: projectID, shortCode: row.code, title: row.name, originalURL: row.options.link,
                utm: UTM(row.utm), og: Link.OpenGraph(title: row.social.title, description: row.social.description, image: row.social.image),
                active: !row.archived, createdAt: row.createdAt ?? now, updatedAt: now, domain: domain, fdl: row.options)
            if let problem = link.validate().first {
                outcome(row.line, row.shortLink, .refused, column: problem.key, reason: problem.message)
                continue
            }
            if let existing = try store.links.find(shortCode: row.code, domain: domain)?.link {
                if existing.fdl == link.fdl, existing.title == link.title, existing.active == link.active, existing.og.title == link.og.title,
                    existing.og.description == link.og.description, existing.og.image == link.og.image, existing.utm == link.utm
                {
                    outcome(row.line, row.shortLink, .skipped)
                } else if replace, existing.projectID == projectID {
                    link = Link(
                        id: existing.id, projectID: projectID, templateID: nil, shortCode: row.code, title: link.title, originalURL: link.originalURL,
                        utm: link.utm, og: link.og, active: link.active, createdAt: existing.createdAt, updatedAt: now, domain: domain,
                        fdl: link.fdl)
                    replacing.append(link)
                    outcome(row.line, row.shortLink, .replaced)
                } else {
                    outcome(
                        row.line, row.shortLink, .conflict, column: "Short link",
                        reason: "the code is another link's (on_conflict=replace rewrites it)")
                }
            } else {
                creating.append(link)
                outcome(row.line, row.shortLink, .created)
            }
            if creating.count + replacing.count >= Self.importBatchSize { try flush() }
        }
        try flush()
        return FDLImportReport(dryRun: dryRun, rows: outcomes)
    }
}
