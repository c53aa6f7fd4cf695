import App
import ArgumentParser
import Foundation

/// `attributiond fx import FILE`: reference rates from the ECB's files (`eurofxref.csv`,
/// `eurofxref-hist.csv`) or a file in their shape, on the database (docs/cost.md, "Currencies").
struct FXCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fx", abstract: "Import reference exchange rates.", subcommands: [Import.self])

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Store the days of an ECB reference-rate CSV (each replacing what was stored).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The CSV file ('-' for standard input).") var file: String
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let bytes = try readInput(file)
            let app = try global.openApp(try global.loadConfiguration())
            let stored = try WebhooksCommand.refusing { try app.exchangeRates.importECB(bytes) }
            if json { return try printJSON(["days": stored.days, "rates": stored.rates]) }
            print("\(stored.days) days, \(stored.rates) rates")
        }
    }
}
