public import Attribution
import Foundation
import StoreContracts

/// What an import of links from another service (a Firebase Dynamic Links export, a Branch link
/// CSV) did, or in a dry run would do, row by row.
public struct LinkImportReport: Sendable {
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
    /// Every row's outcome, or (an import that keeps only what needs reading) every row but the
    /// created ones.
    public let rows: [RowOutcome]
    let counts: [RowOutcome.Outcome: Int]

    public func count(_ outcome: RowOutcome.Outcome) -> Int { counts[outcome] ?? 0 }
}

/// Where an import's CSV comes from: handed to `feed` a piece at a time, read twice (the first
/// reading checks the whole file, so a file that cannot be read changes nothing).
public struct FDLImportSource: Sendable {
    let read: @Sendable (_ feed: ([UInt8]) throws -> Void) throws -> Void

    /// Bytes already in memory (an uploaded body).
    public static func bytes(_ csv: [UInt8]) -> FDLImportSource { FDLImportSource { feed in try feed(csv) } }

    /// A file, read 1 MiB at a time: a million-row export is never whole in memory.
    public static func file(_ path: String) -> FDLImportSource {
        FDLImportSource { feed in
            guard let handle = FileHandle(forReadingAtPath: path) else { throw AppError.invalidField("file", "cannot read \(path)") }
            defer { try? handle.close() }
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { try feed(Array(chunk)) }
        }
    }
}

extension LinkService {
    /// Rows written per transaction: a bad batch (a code taken meanwhile) stores none of its rows.
    static let importBatchSize = 500

    /// Imports a Takeout export of FDL links as links on `domain` (one of the project's): each row
    /// created, skipped (the same link is already there: a re-run changes nothing), a conflict (the
    /// code is another link's; rewritten only with `replace`), or refused with its reason. A file
    /// that cannot be read changes nothing; a dry run writes nothing.
    public func importFDL(projectID: String, domain name: String, csv: [UInt8], dryRun: Bool, replace: Bool, now: Timestamp) throws
        -> LinkImportReport
    {
        try importFDL(projectID: projectID, domain: name, source: .bytes(csv), dryRun: dryRun, replace: replace, now: now)
    }

    /// The same from `source`, read as it goes; `keepingCreatedRows: false` keeps the outcome of
    /// every row but the created ones (counted all the same): the command line's million-row files.
    public func importFDL(
        projectID: String, domain name: String, source: FDLImportSource, dryRun: Bool, replace: Bool, now: Timestamp,
        keepingCreatedRows: Bool = true
    ) throws -> LinkImportReport {
        let domain = try importDomain(name, projectID: projectID)
        func each(checkingOnly: Bool = false, _ body: (Result<FDLExport.Row, FDLExport.Refusal>) throws -> Void) throws {
            var reader = FDLExport.RowReader(domain: domain, checkingOnly: checkingOnly)
            do {
                try source.read { chunk in try reader.feed(chunk, body) }
                try reader.finish(body)
            } catch let unreadable as FDLExport.Unreadable {
                throw AppError.invalidField("file", unreadable.reason)
            }
        }
        try each(checkingOnly: true) { _ in }  // the whole file read first: one that cannot be read changes nothing
        var ledger = importLedger(dryRun: dryRun, keepingCreatedRows: keepingCreatedRows)
        var seen: [String: Int] = [:]
        try each { result in
            let row: FDLExport.Row
            switch result {
            case .failure(let refusal):
                ledger.note(refusal.line, refusal.shortLink, .refused, column: refusal.column, reason: refusal.reason)
                return
            case .success(let parsed): row = parsed
            }
            if let first = seen[row.code] {
                ledger.note(row.line, row.shortLink, .refused, column: "Short link", reason: "the same short link is on line \(first) of the file")
                return
            }
            seen[row.code] = row.line
            var link = Link(
                id: UUID().uuidString.lowercased(), projectID: projectID, shortCode: row.code, title: row.name, originalURL: row.options.link,
                utm: UTM(row.utm), og: Link.OpenGraph(title: row.social.title, description: row.social.description, image: row.social.image),
                active: !row.archived, createdAt: row.createdAt ?? now, updatedAt: now, domain: domain, fdl: row.options)
            if let problem = link.validate().first {
                ledger.note(row.line, row.shortLink, .refused, column: problem.key, reason: problem.message)
                return
            }
            if let existing = try store.links.find(shortCode: row.code, domain: domain)?.link {
                if existing.fdl == link.fdl, existing.title == link.title, existing.active == link.active, existing.og.title == link.og.title,
                    existing.og.description == link.og.description, existing.og.image == link.og.image, existing.utm == link.utm
                {
                    ledger.note(row.line, row.shortLink, .skipped)
                } else if replace, existing.projectID == projectID {
                    link = Link(
                        id: existing.id, projectID: projectID, templateID: nil, shortCode: row.code, title: link.title, originalURL: link.originalURL,
                        utm: link.utm, og: link.og, active: link.active, createdAt: existing.createdAt, updatedAt: now, domain: domain,
                        fdl: link.fdl)
                    try ledger.replace(link, line: row.line, shortLink: row.shortLink)
                } else {
                    ledger.note(
                        row.line, row.shortLink, .conflict, column: "Short link",
                        reason: "the code is another link's (on_conflict=replace rewrites it)")
                }
            } else {
                try ledger.create(link, line: row.line, shortLink: row.shortLink)
            }
        }
        return try ledger.finish()
    }
}
