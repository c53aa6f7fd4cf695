import App
import ArgumentParser
import Attribution
import Foundation
import Store
import StoreContracts

/// `attributiond webhooks …`: the admin API's webhook endpoints and deliveries, on the database
/// file (a running server sends what this queues within a second).
struct WebhooksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhooks", abstract: "Manage webhook endpoints and inspect or replay deliveries.",
        subcommands: [List.self, Create.self, Delete.self, RotateSecret.self, Test.self, Deliveries.self, Replay.self])

    struct ProjectOptions: ParsableArguments {
        @OptionGroup var global: GlobalOptions
        @Option(help: "The project's id.") var project: String
        @Flag(help: "Print JSON.") var json = false

        /// The application over the configured database, and the project (exit 1 naming it when unknown).
        func open() throws -> (AppServices, Project) {
            let configuration = try global.loadConfiguration()
            let app = try global.openApp(configuration)
            guard let found = try app.projects.find(id: project) else {
                FileHandleOutput.standardError("webhooks: no project \(project)")
                throw ExitCode.failure
            }
            return (app, found)
        }
    }

    /// Runs `body`, turning the application's refusals into a message and exit 2 (bad input) or 1.
    static func refusing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as AppError {
            FileHandleOutput.standardError("\(CommandLine.arguments.dropFirst().first ?? "attributiond"): \(error.message)")
            if case .invalid = error { throw ExitCode(2) }
            throw ExitCode.failure
        }
    }

    static func fields(_ endpoint: WebhookEndpoint, secret: Bool = false) -> [String: String] {
        var fields = [
            "id": endpoint.id, "url": endpoint.url, "events": endpoint.events?.joined(separator: ",") ?? "*",
            "enabled": String(endpoint.enabled), "created_at": endpoint.createdAt.iso8601,
        ]
        if let reason = endpoint.disabledReason { fields["disabled_reason"] = reason }
        if secret { fields["secret"] = endpoint.secret }
        return fields
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a project's endpoints (never their secrets).")
        @OptionGroup var options: ProjectOptions

        func run() throws {
            let (app, project) = try options.open()
            let endpoints = try app.webhooks.list(projectID: project.id)
            if options.json { return try printJSON(endpoints.map { WebhooksCommand.fields($0) }) }
            if endpoints.isEmpty { print("no webhook endpoints") }
            for endpoint in endpoints {
                print("\(endpoint.id)  \(endpoint.enabled ? "on " : "off")  \(endpoint.url)  \(endpoint.events?.joined(separator: ",") ?? "*")")
            }
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an endpoint; prints its secret (shown only now).")
        @OptionGroup var options: ProjectOptions
        @Option(help: "The receiver's http(s) URL.") var url: String
        @Option(name: .customLong("event"), help: "An event type to send (repeat; default: every type).") var events: [String] = []

        func run() throws {
            let (app, project) = try options.open()
            let endpoint = try WebhooksCommand.refusing {
                try app.webhooks.create(projectID: project.id, url: url, events: events.isEmpty ? nil : events)
            }
            if options.json { return try printJSON(WebhooksCommand.fields(endpoint, secret: true)) }
            print("id:     \(endpoint.id)\nsecret: \(endpoint.secret)\n(the secret is shown only now; receivers verify signatures with it)")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an endpoint.")
        @OptionGroup var options: ProjectOptions
        @Argument(help: "The endpoint's id.") var id: String

        func run() throws {
            let (app, project) = try options.open()
            try WebhooksCommand.refusing { try app.webhooks.delete(id: id, projectID: project.id) }
        }
    }

    struct RotateSecret: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-secret",
            abstract: "A new secret; the old one keeps signing for 24 hours.")
        @OptionGroup var options: ProjectOptions
        @Argument(help: "The endpoint's id.") var id: String

        func run() throws {
            let (app, project) = try options.open()
            let endpoint = try WebhooksCommand.refusing { try app.webhooks.rotateSecret(id: id, projectID: project.id) }
            if options.json { return try printJSON(WebhooksCommand.fields(endpoint, secret: true)) }
            print("secret: \(endpoint.secret)")
        }
    }

    struct Test: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Queue a webhook.test event for an endpoint.")
        @OptionGroup var options: ProjectOptions
        @Argument(help: "The endpoint's id.") var id: String

        func run() throws {
            let (app, project) = try options.open()
            let message = try WebhooksCommand.refusing { try app.webhooks.sendTest(id: id, projectID: project.id) }
            if options.json { return try printJSON(["delivery_id": message.id, "event_id": message.eventID]) }
            print("queued delivery \(message.id)")
        }
    }

    struct Deliveries: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List deliveries, newest first.")
        @OptionGroup var options: ProjectOptions
        @Option(help: "pending, delivered or failed.") var status: String?
        @Option(help: "webhook, postback or apple_ads.") var kind: String?
        @Option(help: "At most this many (1 to 1000).") var limit = 50

        func validate() throws {
            if let status, OutboxJob.Status(rawValue: status) == nil { throw ValidationError("--status must be pending, delivered or failed") }
            if !(1...1000).contains(limit) { throw ValidationError("--limit must be from 1 to 1000") }
        }

        func run() throws {
            let (app, project) = try options.open()
            let jobs = try app.webhooks.deliveries(
                projectID: project.id, status: status.flatMap(OutboxJob.Status.init), kind: kind,
                since: nil, limit: limit)
            if options.json {
                return try printJSON(
                    jobs.map { job -> [String: String] in
                        [
                            "id": job.message.id, "kind": job.message.kind, "event_type": job.message.eventType, "status": job.status.rawValue,
                            "attempts": String(job.attempts), "last_status_code": job.lastStatusCode.map(String.init) ?? "",
                            "last_error": job.lastError ?? "", "created_at": job.message.createdAt.iso8601,
                        ]
                    })
            }
            if jobs.isEmpty { print("no deliveries") }
            for job in jobs {
                let answer = job.lastStatusCode.map(String.init) ?? job.lastError ?? "-"
                print(
                    "\(job.message.id)  \(job.message.createdAt.iso8601)  \(job.message.kind)  \(job.message.eventType)  \(job.status.rawValue)  attempts \(job.attempts)  \(answer)"
                )
            }
        }
    }

    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a delivery again, or every failed one since a time.")
        @OptionGroup var options: ProjectOptions
        @Option(help: "The delivery's id.") var delivery: String?
        @Option(name: .customLong("failed-since"), help: "Every failed delivery since: \(TimeSpecification.expected).") var failedSince: String?

        func validate() throws {
            guard (delivery == nil) != (failedSince == nil) else { throw ValidationError("give either --delivery or --failed-since") }
            if let failedSince, TimeSpecification.parse(failedSince, now: SystemClock().now()) == nil {
                throw ValidationError("--failed-since: expected \(TimeSpecification.expected)")
            }
        }

        func run() throws {
            let (app, project) = try options.open()
            if let delivery {
                try WebhooksCommand.refusing { try app.webhooks.replay(deliveryID: delivery, projectID: project.id) }
                print("replaying \(delivery)")
            } else if let failedSince, let since = TimeSpecification.parse(failedSince, now: app.now(for: project)) {
                print("replaying \(try app.webhooks.replay(projectID: project.id, status: .failed, since: since)) failed deliveries")
            }
        }
    }
}
