import App
import ArgumentParser
import Attribution
import Configuration
import CurlTransport
import Foundation
import StoreContracts

/// `attributiond export run|backfill|status` (docs/export.md): a project's raw export, an hour or
/// a range of hours at a time, with the same files, manifests and bookkeeping as `serve`'s job.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export a project's closed hours to its destination.", subcommands: [Run.self, Backfill.self, Status.self])

    /// The application with uploads going out (under the outbound policy, as `serve`'s).
    static func open(_ options: WebhooksCommand.ProjectOptions) throws -> (AppServices, Project, CurlTransport) {
        let (app, project) = try options.open()
        let transport = CurlTransport(totalTimeout: 600, policy: app.outboundPolicy)
        app.exports.use(transport, partSizeMiB: try options.global.loadConfiguration().export.partSizeMiB)
        return (app, project, transport)
    }

    static func printed(_ results: [ExportService.HourResult], json: Bool) throws {
        if json {
            return try printJSON(
                results.map { result in
                    [
                        "hour": result.hour.text, "version": String(result.version), "written": String(result.written),
                        "rows": String(result.rows.values.reduce(0, +)),
                    ]
                })
        }
        for result in results {
            let rows = result.rows.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
            print("\(result.hour.text)  v\(result.version)  \(result.written ? "written" : "already complete")  \(rows)")
        }
    }

    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Export one closed hour (UTC).")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Option(help: "The hour, YYYY-MM-DDTHH (UTC).") var hour: String
        @Flag(help: "Write a new version even when the hour is complete.") var again = false

        func run() throws {
            guard let start = ExportHour(text: hour) else { throw ValidationError("--hour must be YYYY-MM-DDTHH (UTC), such as 2026-12-04T01") }
            let (app, project, transport) = try ExportCommand.open(options)
            defer { transport.shutdown() }
            let result = try ExportCommand.failing { try app.exports.run(project: project, hour: start, again: again) }
            try ExportCommand.printed([result], json: options.json)
        }
    }

    struct Backfill: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Export again every hour from a day (or hour) to the last closed one.")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Option(help: "The first day, YYYY-MM-DD, or hour, YYYY-MM-DDTHH (UTC).") var since: String

        func run() throws {
            let first: ExportHour
            if let hour = ExportHour(text: since) {
                first = hour
            } else if since.count == 10, let day = Timestamp(iso8601: since) {
                first = ExportHour(containing: day.milliseconds)
            } else {
                throw ValidationError("--since must be YYYY-MM-DD or YYYY-MM-DDTHH (UTC)")
            }
            let (app, project, transport) = try ExportCommand.open(options)
            defer { transport.shutdown() }
            let results = try ExportCommand.failing { try app.exports.backfill(project: project, since: first) }
            try ExportCommand.printed(results, json: options.json)
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the export's destination and the hours of the last two days.")
        @OptionGroup var options: WebhooksCommand.ProjectOptions

        func run() throws {
            let (app, project) = try options.open()
            let settings = try WebhooksCommand.refusing { try app.exports.settings(project: project) }
            let now = app.clocks.clock(for: project).now().milliseconds
            let hours = try app.exports.hours(project: project, from: now - 48 * ExportHour.milliseconds, to: now)
            if options.json {
                return try printJSON(hours.map { ["hour": ExportHour(containing: $0.hour).text, "version": String($0.version)] })
            }
            print("\(settings.destination)  \(settings.formats.map(\.rawValue).joined(separator: "+"))  \(settings.enabled ? "enabled" : "disabled")")
            for hour in hours {
                print("\(ExportHour(containing: hour.hour).text)  v\(hour.version)  \(hour.rows.values.reduce(0, +)) rows")
            }
        }
    }

    /// Refusals as `refusing` says them; a destination that refused or failed: its message, exit 1.
    static func failing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try WebhooksCommand.refusing(body)
        } catch let error as ExitCode {
            throw error
        } catch {
            FileHandleOutput.standardError("export: \(error)")
            throw ExitCode.failure
        }
    }
}
