import Foundation
import TestSupport
import Testing

/// The README's Quickstart and webhook examples, run as written against a fresh server: only the
/// address (a free port instead of 8080), the binary's path and the database's path are put in.
/// Keeps the first page a new user reads true.
@Suite struct ReadmeTests {
    static let readme: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The ```sh blocks between `heading` and the next heading of its level or above.
    static func shellBlocks(under heading: String) -> [String] {
        guard let start = readme.range(of: "\n" + heading + "\n") else { return [] }
        let level = heading.prefix { $0 == "#" }.count
        let lines = readme[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
        var inFence = false
        var end = lines.endIndex
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("```") {
                inFence.toggle()
                continue
            }
            let hashes = line.prefix { $0 == "#" }.count
            if !inFence, hashes > 0, hashes <= level, line.dropFirst(hashes).hasPrefix(" ") {
                end = index
                break
            }
        }
        let section = lines[..<end].joined(separator: "\n")
        return section.components(separatedBy: "```sh\n").dropFirst().map { String($0.components(separatedBy: "\n```")[0]) }
    }

    @Test func theQuickstartAndWebhookExamplesRunAsWritten() throws {
        let quickstart = Self.shellBlocks(under: "### Quickstart: a project, a link, a tap, an install")
        let webhooks = Self.shellBlocks(under: "## Webhooks and ad-network postbacks")
        try #require(quickstart.count == 2 && webhooks.count == 1, "the README's sections moved: \(quickstart.count), \(webhooks.count)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func bash(_ script: String) throws -> (status: Int32, output: String) {
            // A new user's shell: none of the test run's own ATTRIBUTIOND_* variables.
            let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ATTRIBUTIOND_") }
            let result = try ChildProcess.run("/bin/bash", ["-c", "set -e\n" + script], environment: environment, directory: folder.path)
            return (result.status, String(decoding: result.stdout, as: UTF8.self) + String(decoding: result.stderr, as: UTF8.self))
        }
        #expect(try bash(quickstart[0]).status == 0)
        // The key is its owner's alone, and lives where git ignores it.
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("data/admin.key").path)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o077 } == 0, "\(attributes[.posixPermissions] ?? "")")
        let key = try String(contentsOf: folder.appendingPathComponent("data/admin.key"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        // No DNS here: the webhook example's host is not resolved when private targets are allowed.
        let server = try ServerProcess(folder: folder, environment: ["ATTRIBUTIOND_ADMIN_KEY": key, "ATTRIBUTIOND_OUTBOUND_ALLOW_PRIVATE": "true"])
        defer { _ = server.terminateAndWait() }
        let script = (quickstart[1] + "\n" + webhooks[0])
            .replacingOccurrences(of: "localhost:8080", with: "127.0.0.1:\(server.port)")
            .replacingOccurrences(of: ".build/release/attributiond", with: try attributiondBinary().path)
            .replacingOccurrences(of: "data/attributiond.sqlite", with: server.databasePath)
        let (status, output) = try bash(script)
        #expect(status == 0, "\(output)")
        #expect(output.contains(#""attributed":true"#) && output.contains(#""confidenceScore":65"#), "\(output)")
        #expect(output.contains(#""matchedFactors":["ip","platform","os_version"]"#), "\(output)")
        #expect(
            output.contains(#""shortCode":"launch""#) && output.contains(#""deepLinkPath":"\/welcome""#)
                || output.contains(#""deepLinkPath":"/welcome""#), "\(output)")
        #expect(output.lowercased().contains("x-click-id:"), "the tap's headers")
        #expect(output.contains(#""secret":"whsec_"#), "the webhook example's answer: \(output)")
        #expect(output.contains(#""network":"tune""#), "the postback example's answer: \(output)")
        #expect(output.contains("no deliveries"), "\(output)")
    }
}
