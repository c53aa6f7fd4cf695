import API
import App
import ArgumentParser
import Attribution
import Foundation
import Store
import StoreContracts

struct ProjectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "project",
        abstract: "Create and inspect projects (apps).",
        subcommands: [Create.self, List.self, Show.self, Key.self, RotateToken.self, Delete.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a project; prints its token and API key (shown only now).")

        @OptionGroup var global: GlobalOptions
        @Option(help: "The project's name (unique).") var name: String
        @Flag(help: "A sandbox with its own clock, moved by POST /admin/v1/projects/{id}/clock (fixed at creation).")
        var testMode = false
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            if let problem = Project.validateName(name) { throw ValidationError("--name \(problem.message)") }
            let configuration = try global.loadConfiguration()
            let app = try global.openApp(configuration)
            let created: CreatedProject
            do {
                created = try app.projects.create(name: name, settings: ProjectSettings(), testMode: testMode)
            } catch let error as StoreError {
                FileHandleOutput.standardError("project create: \(error)")
                throw ExitCode.failure
            }
            if json {
                try printJSON(["id": created.project.id, "name": created.project.name, "token": created.token, "api_key": created.apiKey.key])
            } else {
                print("id:      \(created.project.id)\nname:    \(created.project.name)\ntoken:   \(created.token)\napi_key: \(created.apiKey.key)")
                print("(the token and API key are shown only now; store them safely)")
            }
        }
    }

    struct Key: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue another API key for a project (shown only now).",
            discussion:
                "--format warplink issues a key in the shape WarpLink's SDKs require (wl_live_… or wl_test_…); --format branch a Branch key (key_live_… or key_test_…) for apps that keep Branch's SDK."
        )

        enum Format: String, ExpressibleByArgument, CaseIterable { case standard, warplink, branch }
        enum Mode: String, ExpressibleByArgument, CaseIterable { case live, test }

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The project's id.") var id: String
        @Option(help: "standard (ak_…), warplink (wl_live_… / wl_test_…) or branch (key_live_… / key_test_…).") var format: Format = .standard
        @Option(help: "For --format warplink or branch: live or test.") var mode: Mode?
        @Flag(help: "Print JSON.") var json = false

        func validate() throws {
            if mode != nil, format == .standard { throw ValidationError("--mode applies only to --format warplink or branch") }
        }

        func run() throws {
            let configuration = try global.loadConfiguration()
            let app = try global.openApp(configuration)
            let keyFormat: APIKeyFormat =
                switch format {
                case .standard: .standard
                case .warplink: .warplink(test: mode == .test)
                case .branch: .branch(test: mode == .test)
                }
            let issued: IssuedAPIKey
            do {
                issued = try app.projects.issueAPIKey(projectID: id, format: keyFormat)
            } catch AppError.notFound {
                FileHandleOutput.standardError("project key: no project \(id)")
                throw ExitCode.failure
            }
            if json {
                try printJSON(["id": issued.id, "key": issued.key, "prefix": issued.prefix])
            } else {
                print("id:  \(issued.id)\nkey: \(issued.key)")
                print("(the key is shown only now; store it safely)")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List projects.")

        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let configuration = try global.loadConfiguration()
            let projects = try global.openApp(configuration).projects.list()
            if json {
                try printJSON(projects.map { ["id": $0.id, "name": $0.name, "created_at": $0.createdAt.iso8601] })
            } else if projects.isEmpty {
                print("no projects (create one with: attributiond project create --name NAME)")
            } else {
                for project in projects { print("\(project.id)  \(project.name)") }
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a project's settings.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The project's id.") var id: String
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let configuration = try global.loadConfiguration()
            let app = try global.openApp(configuration)
            guard let project = try app.projects.find(id: id) else {
                FileHandleOutput.standardError("project show: no project \(id)")
                throw ExitCode.failure
            }
            let settings = project.settings
            let fields: [(String, String)] = [
                ("id", project.id), ("name", project.name), ("created_at", project.createdAt.iso8601),
                ("attribution_window_hours", String(settings.attributionWindowHours)),
                ("min_confidence", String(settings.minConfidence)), ("currency", settings.currency),
                ("reporting_currency", settings.reportingCurrency),
                ("signing", settings.signing.rawValue), ("test_mode", String(project.testMode)),
                ("ios_team_id", settings.iosTeamID ?? ""), ("ios_bundle_id", settings.iosBundleID ?? ""),
                ("android_package", settings.androidPackage ?? ""), ("ios_store_url", settings.iosStoreURL ?? ""),
                ("android_store_url", settings.androidStoreURL ?? ""), ("web_url", settings.webURL ?? ""),
                ("api_keys", try app.projects.apiKeys(projectID: id).filter { $0.revokedAt == nil }.map { $0.prefix + "…" }.joined(separator: ", ")),
            ]
            if json {
                try printJSON(Dictionary(uniqueKeysWithValues: fields))
            } else {
                for (key, value) in fields { print("\(key.padding(toLength: 25, withPad: " ", startingAt: 0)) \(value)") }
            }
        }
    }
    struct RotateToken: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-token",
            abstract: "Replace the project's token; prints the new one (shown only now). The old one keeps working for --grace-hours.")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The project's id.") var id: String
        @Option(help: "Hours the old token stays accepted (0 to 720).") var graceHours = 168
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let configuration = try global.loadConfiguration()
            let app = try global.openApp(configuration)
            do {
                let (token, until) = try app.projects.rotateToken(projectID: id, graceHours: graceHours)
                if json { return try printJSON(["token": token, "previous_token_valid_until": until?.iso8601 ?? ""]) }
                print("token: \(token)\n(shown only now; the old token is \(until.map { "accepted until \($0.iso8601)" } ?? "refused from now on"))")
            } catch let error as AppError {
                FileHandleOutput.standardError("project rotate-token: \(error.message)")
                if case .notFound = error { throw ExitCode.failure }
                throw ExitCode(2)
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a project and everything stored for it (links, clicks, installs, events, payments, keys, webhooks).")

        @OptionGroup var global: GlobalOptions
        @Argument(help: "The project's id.") var id: String
        @Flag(help: "Confirm: the deletion cannot be undone.") var yes = false

        func run() throws {
            guard yes else { throw ValidationError("deleting a project cannot be undone: add --yes to confirm") }
            let configuration = try global.loadConfiguration()
            let app = try global.openApp(configuration)
            do {
                try app.projects.delete(projectID: id)
                print("deleted project \(id)")
            } catch let error as AppError {
                FileHandleOutput.standardError("project delete: \(error.message)")
                throw ExitCode.failure
            }
        }
    }
}

func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
