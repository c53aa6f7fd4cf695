import App
import ArgumentParser
import Attribution
import Foundation
import Store
import StoreContracts

/// `attributiond postbacks …`: a project's ad-network postback templates, on the database file.
struct PostbacksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postbacks", abstract: "Manage ad-network postback templates.",
        subcommands: [List.self, Create.self, Delete.self])

    static func fields(_ template: PostbackTemplate) -> [String: String] {
        var fields = [
            "id": template.id, "network": template.network, "trigger": template.trigger, "method": template.method,
            "url": template.url, "enabled": String(template.enabled),
        ]
        if let body = template.body { fields["body"] = body }
        return fields
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a project's templates.")
        @OptionGroup var options: WebhooksCommand.ProjectOptions

        func run() throws {
            let (app, project) = try options.open()
            let templates = try app.postbacks.list(projectID: project.id)
            if options.json { return try printJSON(templates.map(PostbacksCommand.fields)) }
            if templates.isEmpty { print("no postback templates") }
            for template in templates {
                print(
                    "\(template.id)  \(template.enabled ? "on " : "off")  \(template.network)  \(template.trigger)  \(template.method) \(template.url)"
                )
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a template (its {macros} are checked).")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Option(help: "The network: the utm_source of its links.") var network: String
        @Option(help: "install, payment, or an event name.") var trigger: String
        @Option(help: "GET or POST.") var method = "GET"
        @Option(help: "The URL, with {macros}.") var url: String
        @Option(help: "A POST body, with {macros}.") var body: String?

        func run() throws {
            let (app, project) = try options.open()
            let template = try WebhooksCommand.refusing {
                try app.postbacks.create(
                    projectID: project.id,
                    .init(
                        network: network, trigger: trigger, method: method, url: url,
                        body: body.map { .some($0) }))
            }
            if options.json { return try printJSON(PostbacksCommand.fields(template)) }
            print("id: \(template.id)")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a template.")
        @OptionGroup var options: WebhooksCommand.ProjectOptions
        @Argument(help: "The template's id.") var id: String

        func run() throws {
            let (app, project) = try options.open()
            try WebhooksCommand.refusing { try app.postbacks.delete(id: id, projectID: project.id) }
        }
    }
}
