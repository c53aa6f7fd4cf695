import App
import ArgumentParser
import Attribution
import Foundation

/// `attributiond cost import FILE` and `cost list`: a project's ad spend on the database file
/// (docs/cost.md), checked and stored as the admin API's upload is, with no size limit.
struct CostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cost", abstract: "Import and list a project's ad spend.", subcommands: [Import.self, List.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store a cost CSV (date, network, campaign_id, campaign_name, spend[, adgroup_id, ad_id, currency, impressions, clicks]).")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Argument(help: "The CSV file ('-' for standard input).") var file: String

        func run() throws {
            let bytes = try readInput(file)
            let (app, project) = try options.open()
            let saved = try WebhooksCommand.refusing { try app.costs.importCSV(bytes, project: project) }
            if options.json { return try printJSON(["added": saved.added, "replaced": saved.replaced]) }
            print("\(saved.added + saved.replaced) rows: \(saved.added) added, \(saved.replaced) replaced")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the cost rows of a range of days (both included).")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Option(help: "The first day, YYYY-MM-DD.") var since: String
        @Option(help: "The last day, YYYY-MM-DD.") var until: String

        func run() throws {
            let (app, project) = try options.open()
            let rows = try WebhooksCommand.refusing { try app.costs.rows(project: project, since: since, until: until) }
            if options.json {
                return try printJSON(
                    rows.map { row in
                        [
                            "date": row.day, "network": row.network, "campaign_id": row.campaignID, "campaign_name": row.campaignName,
                            "adgroup_id": row.adGroupID, "ad_id": row.adID, "spend": MoneyAmount.text(row.spend, currency: row.currency),
                        ]
                    })
            }
            if rows.isEmpty { print("no cost in \(since) – \(until)") }
            for row in rows {
                let campaign = row.campaignName.isEmpty ? row.campaignID : "\(row.campaignName) (\(row.campaignID))"
                print("\(row.day)  \(row.network)  \(campaign)  \(MoneyAmount.text(row.spend, currency: row.currency))")
            }
        }
    }
}

/// The bytes of `file`, or of standard input for `-`.
func readInput(_ file: String) throws -> [UInt8] {
    if file == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
    guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
    return Array(data)
}
