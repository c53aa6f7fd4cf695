import API
import App
import ArgumentParser
import Attribution
import Foundation
import JSON

/// `attributiond import fdl --project ID --domain D FILE`: a Firebase Dynamic Links export (one
/// Takeout CSV file per domain) imported as links on one of the project's domains.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import links from another service.", subcommands: [FDL.self, Branch.self])

    struct FDL: ParsableCommand {
        /// The report as text, or the API's JSON; rows refused or in conflict exit 1 (a script sees
        /// that not everything came over), and a re-run changes nothing for the rows that did.
        static func print(_ report: LinkImportReport, json: Bool) throws {
            defer { if report.count(.refused) + report.count(.conflict) > 0 { Foundation.exit(1) } }
            if json { return Swift.print(String(decoding: LinkImportRoutes.body(report).serialized(), as: UTF8.self)) }
            for row in report.rows where [.refused, .conflict].contains(row.outcome) {
                Swift.print(
                    "line \(row.line): \(row.outcome.rawValue)\(row.column.map { " (\($0))" } ?? ""): \(row.reason ?? "") \(row.shortLink ?? "")")
            }
            Swift.print(
                "\(report.dryRun ? "dry run: would create" : "created") \(report.count(.created)), skipped \(report.count(.skipped)), "
                    + "replaced \(report.count(.replaced)), conflicts \(report.count(.conflict)), refused \(report.count(.refused))"
                    + (report.count(.refused) + report.count(.conflict) > 0 ? " (exit status 1: rows above were not imported)" : ""))
        }

        static let configuration = CommandConfiguration(
            commandName: "fdl", abstract: "Import a Firebase Dynamic Links export (Google Takeout CSV) onto a project domain.")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Option(help: "The project domain the links live on (the export's domain).") var domain: String
        @Flag(help: "Report what would be created, skipped and refused; write nothing.") var dryRun = false
        @Option(help: "skip (default) or replace: what to do with a code another link has.") var onConflict = "skip"
        @Argument(help: "The CSV file.") var file: String

        func validate() throws {
            guard ["skip", "replace"].contains(onConflict) else { throw ValidationError("--on-conflict must be skip or replace") }
        }

        func run() throws {
            guard FileManager.default.isReadableFile(atPath: file) else {
                FileHandleOutput.standardError("import: cannot read \(file)")
                throw ExitCode(2)
            }
            let (app, project) = try options.open()
            // Read as it goes, created rows counted and not kept: a million-row export in little memory.
            let report = try WebhooksCommand.refusing {
                try app.links.importFDL(
                    projectID: project.id, domain: domain, source: .file(file), dryRun: dryRun, replace: onConflict == "replace",
                    now: app.clocks.now(projectID: project.id), keepingCreatedRows: options.json)
            }
            try Self.print(report, json: options.json)
        }
    }

    /// `attributiond import branch --project ID [--domain D] FILE`: a CSV of Branch links
    /// (docs/migrate-from-branch.md) imported as the project's links.
    struct Branch: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "branch", abstract: "Import a CSV of Branch links (url or alias, data, channel, feature, campaign, stage, tags).")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Option(help: "A project domain the links live on (default: the server's own host).") var domain: String?
        @Flag(help: "Report what would be created, skipped and refused; write nothing.") var dryRun = false
        @Option(help: "skip (default) or replace: what to do with a code another link has.") var onConflict = "skip"
        @Argument(help: "The CSV file.") var file: String

        func validate() throws {
            guard ["skip", "replace"].contains(onConflict) else { throw ValidationError("--on-conflict must be skip or replace") }
        }

        func run() throws {
            guard let csv = FileManager.default.contents(atPath: file) else {
                FileHandleOutput.standardError("import: cannot read \(file)")
                throw ExitCode(2)
            }
            let (app, project) = try options.open()
            let report = try WebhooksCommand.refusing {
                try app.links.importBranch(
                    projectID: project.id, domain: domain, csv: Array(csv), dryRun: dryRun, replace: onConflict == "replace",
                    now: app.clocks.now(projectID: project.id))
            }
            try FDL.print(report, json: options.json)
        }
    }
}
