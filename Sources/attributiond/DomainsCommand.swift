import App
import ArgumentParser
import Attribution
import Foundation
import Store
import StoreContracts

/// `attributiond domains …`: a project's own link domains, on the database.
struct DomainsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "domains", abstract: "Manage a project's own link domains.",
        subcommands: [Add.self, List.self, Remove.self])

    static func fields(_ domain: ProjectDomain) -> [String: String] {
        ["id": domain.id, "domain": domain.domain, "created_at": domain.createdAt.iso8601]
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Claim a domain for the project (links.shop.com).")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Argument(help: "The domain name.") var domain: String

        func run() throws {
            let (app, project) = try options.open()
            let added: ProjectDomain
            do {
                added = try WebhooksCommand.refusing { try app.domains.add(projectID: project.id, name: domain) }
            } catch StoreError.conflict(let message) {
                FileHandleOutput.standardError("domains: \(message)")
                throw ExitCode.failure
            }
            if options.json { return try printJSON(DomainsCommand.fields(added)) }
            print("\(added.id)  \(added.domain)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the project's domains.")
        @OptionGroup var options: WebhooksCommand.ProjectOptions

        func run() throws {
            let (app, project) = try options.open()
            let domains = try app.domains.list(projectID: project.id)
            if options.json { return try printJSON(domains.map(DomainsCommand.fields)) }
            if domains.isEmpty { print("no domains") }
            for domain in domains { print("\(domain.id)  \(domain.domain)") }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Give a domain up (by its id or its name).")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Argument(help: "The domain's id or name.") var domain: String
        @Flag(help: "Remove it even though links live on it (they are deleted with it).") var force = false

        func run() throws {
            let (app, project) = try options.open()
            let name = (try? DomainName.normalized(domain).get()) ?? domain
            let id = try app.domains.list(projectID: project.id).first { $0.id == domain || $0.domain == name }?.id ?? domain
            try WebhooksCommand.refusing { try app.domains.remove(id: id, projectID: project.id, force: force) }
        }
    }
}
