import ArgumentParser
import Attribution
import Foundation
import StoreContracts

/// `attributiond rollups check|rebuild`: the dashboard's and the stats' rollups against a recount
/// of the rows, for a database changed by hand (docs/storage.md, "Counting").
struct RollupsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rollups", abstract: "Compare the rollups with a recount of the rows, or rebuild them from it.",
        subcommands: [Check.self, Rebuild.self])

    struct Options: ParsableArguments {
        @OptionGroup var global: GlobalOptions
        @Option(help: "One project's id (default: every project).") var project: String?
        @Option(help: "From when: \(TimeSpecification.expected) (default: all time).") var since: String?

        func validate() throws {
            if let since, TimeSpecification.parse(since, now: SystemClock().now()) == nil {
                throw ValidationError("--since: expected \(TimeSpecification.expected)")
            }
        }

        var sinceHour: Int64 {
            guard let since, let from = TimeSpecification.parse(since, now: SystemClock().now()) else { return Int64.min / 2 }
            return from.milliseconds / 3_600_000
        }

        func withStore<T>(_ body: (any StoreBackend) throws -> T) throws -> T {
            let store = try global.openStore(try global.loadConfiguration())
            defer { try? store.close() }
            if let project, try store.projects.find(id: project) == nil {
                FileHandleOutput.standardError("rollups: no project \(project)")
                throw ExitCode.failure
            }
            return try body(store)
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the rollup rows that differ from a recount of the rows; exit 1 when any does.")
        @OptionGroup var options: Options
        @Option(help: "Print at most this many rows.") var limit = 50

        func run() throws {
            let (lines, differing) = try options.withStore {
                try $0.rollups.check(projectID: options.project, sinceHour: options.sinceHour, limit: limit)
            }
            guard differing > 0 else { return print("rollups match a recount of the rows") }
            for line in lines { print(line) }
            if differing > lines.count { print("… and \(differing - lines.count) more") }
            FileHandleOutput.standardError("rollups: \(differing) rows differ from a recount; `attributiond rollups rebuild` rewrites them")
            throw ExitCode.failure
        }
    }

    struct Rebuild: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the rollups (from the day of --since on) with a recount of the rows, in one transaction.")
        @OptionGroup var options: Options

        func run() throws {
            let written = try options.withStore { try $0.rollups.rebuild(projectID: options.project, sinceHour: options.sinceHour) }
            print("rollups rebuilt: \(written) rows written")
        }
    }
}
