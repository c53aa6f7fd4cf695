public import Attribution
import Foundation
import StoreContracts

extension LinkService {
    /// Imports a CSV of Branch links (`BranchLinkExport`) as links of the project, on `domain`
    /// (one of the project's) or on the server's own host: each row created, skipped (the same
    /// link is already there: a re-run changes nothing), a conflict (the code is another link's;
    /// rewritten only with `replace`), or refused naming its column. A dry run writes nothing.
    public func importBranch(
        projectID: String, domain name: String?, csv: [UInt8], dryRun: Bool, replace: Bool, now: Timestamp
    ) throws -> LinkImportReport {
        let domain = try name.map { try importDomain($0, projectID: projectID) }
        var ledger = importLedger(dryRun: dryRun)
        var seen: [String: Int] = [:]
        for result in BranchLinkExport.rows(csv) {
            let row: BranchLinkExport.Row
            switch result {
            case .failure(let refusal):
                ledger.note(refusal.line, refusal.shownAs, .refused, column: refusal.column, reason: refusal.reason)
                continue
            case .success(let parsed): row = parsed
            }
            if let first = seen[row.code.lowercased()] {
                ledger.note(row.line, row.shownAs, .refused, column: "url", reason: "the same link is on line \(first) of the file")
                continue
            }
            seen[row.code.lowercased()] = row.line
            func makeLink(id: String, createdAt: Timestamp) -> Result<Link, ValidationProblem> {
                var link = Link(
                    id: id, projectID: projectID, shortCode: row.code, title: row.title, createdAt: createdAt, updatedAt: now, domain: domain)
                if let problem = BranchLinkFields.apply(row.data, utm: row.utm, to: &link) ?? link.validate().first { return .failure(problem) }
                return .success(link)
            }
            let link: Link
            switch makeLink(id: UUID().uuidString.lowercased(), createdAt: now) {
            case .failure(let problem):
                ledger.note(row.line, row.shownAs, .refused, column: problem.key.hasPrefix("data") ? "data" : problem.key, reason: problem.message)
                continue
            case .success(let made): link = made
            }
            guard let existing = try store.links.find(shortCode: row.code, domain: domain)?.link else {
                try ledger.create(link, line: row.line, shortLink: row.shownAs)
                continue
            }
            if Self.sameBranchFields(existing, link) {
                ledger.note(row.line, row.shownAs, .skipped)
            } else if replace, existing.projectID == projectID,
                case .success(let replacement) = makeLink(id: existing.id, createdAt: existing.createdAt)
            {
                try ledger.replace(replacement, line: row.line, shortLink: row.shownAs)
            } else {
                ledger.note(row.line, row.shownAs, .conflict, column: "url", reason: "the code is another link's (on_conflict=replace rewrites it)")
            }
        }
        return try ledger.finish()
    }

    /// Whether a stored link already holds what a row of a Branch import would give it.
    static func sameBranchFields(_ stored: Link, _ imported: Link) -> Bool {
        stored.title == imported.title && stored.deepLinkPath == imported.deepLinkPath && stored.deepLinkParameters == imported.deepLinkParameters
            && stored.utm == imported.utm && stored.og == imported.og && stored.iosURL == imported.iosURL && stored.androidURL == imported.androidURL
            && stored.webURL == imported.webURL
    }
}
