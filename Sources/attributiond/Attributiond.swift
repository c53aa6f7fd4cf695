import ArgumentParser

struct Attributiond: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attributiond",
        abstract: "A self-hosted install-attribution server.",
        subcommands: [
            Serve.self, Migrate.self, MigrateData.self, ProjectCommand.self, LinkCommand.self, StatsCommand.self, WebhooksCommand.self,
            PostbacksCommand.self, AdPlatformsCommand.self, CostCommand.self, FXCommand.self, DomainsCommand.self, ImportCommand.self,
            RollupsCommand.self, IPListsCommand.self, ExportCommand.self,
            Simulate.self,
            Healthcheck.self,
            Version.self,
        ],
        defaultSubcommand: Serve.self
    )
}
