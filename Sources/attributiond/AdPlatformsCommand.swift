import App
import ArgumentParser
import Attribution
import Foundation
import StoreContracts

/// `attributiond ad-platforms …`: a project's ad-platform connections, on the database file
/// (docs/ad-platforms/). Credentials are shown masked, as the admin API shows them.
struct AdPlatformsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ad-platforms", abstract: "Manage a project's Google Ads, Meta, TikTok and Snap connections.",
        subcommands: [List.self, Set.self, Delete.self])

    static func fields(_ connection: AdPlatformConnection) -> [String: String] {
        var fields = connection.settings
        for (key, secret) in connection.secrets { fields[key] = AdPlatformService.masked(secret) }
        fields["platform"] = connection.platform.rawValue
        fields["enabled"] = String(connection.enabled)
        return fields
    }

    static func platform(_ name: String) throws -> AdPlatform {
        guard let platform = AdPlatform(rawValue: name) else {
            throw ValidationError("unknown platform '\(name)'; known: google, meta, tiktok, snap")
        }
        return platform
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a project's connections.")
        @OptionGroup var options: WebhooksCommand.ProjectOptions

        func run() throws {
            let (app, project) = try options.open()
            let connections = try app.adPlatforms.connections(projectID: project.id)
            if options.json { return try printJSON(connections.map(AdPlatformsCommand.fields)) }
            if connections.isEmpty { print("no ad-platform connections") }
            for connection in connections {
                let shown = AdPlatformsCommand.fields(connection).filter { $0.key != "platform" && $0.key != "enabled" }
                print(
                    "\(connection.platform.rawValue)  \(connection.enabled ? "on " : "off")  "
                        + shown.keys.sorted().map { "\($0)=\(shown[$0]!)" }.joined(separator: " "))
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Connect a platform, or change its connection (a credential left out keeps its stored value).")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Argument(help: "google, meta, tiktok or snap.") var platform: String
        @Option(name: .customLong("set"), help: "A setting or credential as name=value (repeatable), e.g. developer_token=…, link_id_ios=….")
        var values: [String] = []

        func run() throws {
            let (app, project) = try options.open()
            let platform = try AdPlatformsCommand.platform(platform)
            let shape = AdPlatformService.shape(of: platform)
            var settings: [String: String] = [:]
            var secrets: [String: String] = [:]
            for pair in values {
                guard let equals = pair.firstIndex(of: "=") else { throw ValidationError("'\(pair)' is not name=value") }
                let name = String(pair[..<equals])
                let value = String(pair[pair.index(after: equals)...])
                if shape.secrets.contains(name) { secrets[name] = value } else { settings[name] = value }
            }
            let connection = try WebhooksCommand.refusing {
                try app.adPlatforms.save(projectID: project.id, platform: platform, .init(settings: settings, secrets: secrets))
            }
            if options.json { return try printJSON(AdPlatformsCommand.fields(connection)) }
            print("\(platform.rawValue): connected")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disconnect a platform.")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Argument(help: "google, meta, tiktok or snap.") var platform: String

        func run() throws {
            let (app, project) = try options.open()
            let platform = try AdPlatformsCommand.platform(platform)
            try WebhooksCommand.refusing { try app.adPlatforms.delete(projectID: project.id, platform: platform) }
        }
    }
}
