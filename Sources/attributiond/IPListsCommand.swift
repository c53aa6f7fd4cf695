import ArgumentParser
import Configuration
import Foundation

/// `attributiond ip-lists update`: Apple's Private Relay egress list into `private_relay_list`.
struct IPListsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ip-lists", abstract: "Keep the address lists matching classifies addresses by.", subcommands: [Update.self])

    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch Apple's Private Relay egress list into private_relay_list (a running server reads it at its next start or refresh).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Where to write it (default: private_relay_list).") var to: String?
        @Option(help: "Where to fetch it from (default: private_relay_url, Apple's).") var url: String?

        func run() throws {
            let configuration = try global.loadConfiguration()
            guard let path = to ?? configuration.privateRelayList else {
                FileHandleOutput.standardError("ip-lists: set private_relay_list (or pass --to) to say where the list goes")
                throw ExitCode(2)
            }
            do {
                let prefixes = try PrivateRelayList.update(url: url ?? configuration.privateRelayURL, path: path)
                print("\(prefixes) Private Relay prefixes written to \(path)")
            } catch {
                FileHandleOutput.standardError("ip-lists: \(error)")
                throw ExitCode.failure
            }
        }
    }
}
