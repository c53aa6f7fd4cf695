import Foundation
import TestSupport
import Testing

/// Real Caddy in front, getting certificates on demand from its own internal CA (no internet),
/// and asking the server first (`ask http://…/tls/allowed`): a project domain gets a certificate
/// and reaches the server; any other name gets none.
@Suite struct CaddyOnDemandTests {
    @Test func caddyGetsCertificatesOnlyForProjectDomains() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/caddy") else {
            Issue.record("caddy is not installed: run scripts/ensure-deps --test")
            return
        }
        let folder = try ACMECertificateTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServerProcess(
            [], folder: folder.appendingPathComponent("server"),
            environment: ["ATTRIBUTIOND_ADMIN_KEY": ACMECertificateTests.adminKey, "ATTRIBUTIOND_LOG_LEVEL": "notice"])
        let created = ACMECertificateTests.admin(server.port, "POST", "/admin/v1/projects", #"{"name":"Shop"}"#)
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)
        _ = ACMECertificateTests.admin(server.port, "POST", "/admin/v1/projects/\(project)/domains", #"{"domain":"links.shop.test"}"#)

        // Caddy binds ports picked before it starts; under a loaded CI another process may take
        // one first, and Caddy exits: it is started again on new ports (at most three times).
        var attempt = 0
        var outcome: (through: Bool, httpsPort: Int, log: String) = (false, 0, "")
        repeat {
            attempt += 1
            outcome = try runCaddy(folder: folder.appendingPathComponent("caddy-\(attempt)"), serverPort: server.port)
        } while !outcome.through && outcome.log.contains("address already in use") && attempt < 3
        #expect(outcome.through, "Caddy did not serve the project domain:\n\(outcome.log.suffix(2000))")
        // A name that is no project's: Caddy asks, hears 404, and gets no certificate.
        #expect(
            ACMECertificateTests.curl([
                "-k", "--resolve", "other.test:\(outcome.httpsPort):127.0.0.1", "https://other.test:\(outcome.httpsPort)/health",
            ]).status != 0)
    }

    /// Runs Caddy in front of the server until the project domain answers through it (or 60 s
    /// pass); returns whether it did, its HTTPS port, and what Caddy logged.
    private func runCaddy(folder: URL, serverPort: UInt16) throws -> (through: Bool, httpsPort: Int, log: String) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let httpsPort = freePort()
        let caddyfile = folder.appendingPathComponent("Caddyfile")
        try Data(
            """
            {
            \tadmin off
            \tskip_install_trust
            \thttp_port \(freePort())
            \thttps_port \(httpsPort)
            \ton_demand_tls {
            \t\task http://127.0.0.1:\(serverPort)/tls/allowed
            \t}
            }
            https:// {
            \ttls internal {
            \t\ton_demand
            \t}
            \treverse_proxy 127.0.0.1:\(serverPort)
            }

            """.utf8
        ).write(to: caddyfile)
        let data = folder.appendingPathComponent("caddy-data")
        let caddy = try ChildProcess(
            "/usr/bin/caddy", ["run", "--config", caddyfile.path, "--adapter", "caddyfile"],
            environment: ProcessInfo.processInfo.environment.merging(
                ["XDG_DATA_HOME": data.path, "XDG_CONFIG_HOME": folder.appendingPathComponent("caddy-config").path]) { $1 },
            output: true, error: true)
        defer {
            caddy.send(SIGTERM)
            _ = caddy.wait(orKillAfter: 10)
        }
        let log = LockedText()
        for handle in [caddy.standardOutput!, caddy.standardError!] {
            Thread.detachNewThread {
                while case let chunk = handle.availableData, !chunk.isEmpty { log.append(String(decoding: chunk, as: UTF8.self)) }
            }
        }
        let root = data.appendingPathComponent("caddy/pki/authorities/local/root.crt").path
        let through = eventually(timeout: 60) {
            guard caddy.isRunning else { return true }
            return ACMECertificateTests.curl([
                "--cacert", root, "--resolve", "links.shop.test:\(httpsPort):127.0.0.1", "https://links.shop.test:\(httpsPort)/health",
            ]).stdout.contains("ok")
        }
        return (through && caddy.isRunning, httpsPort, log.text)
    }
}

/// Text appended from several threads (a child process's output).
private final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var value = ""
    func append(_ text: String) { lock.withLock { value += text } }
    var text: String { lock.withLock { value } }
}
