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
        commandName: "import", abstract: "Import links from another service.", subcommands: [FDL.self])

    struct FDL: ParsableCommand {
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
            // Rows refused or in conflict exit 1 (a script sees that not everything came over); the
            // rows that could come did, and a re-run changes nothing for them.
            defer { if report.count(.refused) + report.count(.conflict) > 0 { Foundation.exit(1) } }
            if options.json { return print(String(decoding: FDLImportRoutes.body(report).serialized(), as: UTF8.self)) }
            for row in report.rows where [.refused, .conflict].contains(row.outcome) {
                print("line \(row.line): \(row.outcome.rawValue)\(row.column.map { " (\($0))" } ?? ""): \(row.reason ?? "") \(row.shortLink ?? "")")
            }
            print(
                "\(report.dryRun ? "dry run: would create" : "created") \(report.count(.created)), skipped \(report.count(.skipped)), "
                    + "replaced \(report.count(.replaced)), conflicts \(report.count(.conflict)), refused \(report.count(.refused))"
                    + (report.count(.refused) + report.count(.conflict) > 0 ? " (exit status 1: rows above were not imported)" : ""))
        }
    }
}
