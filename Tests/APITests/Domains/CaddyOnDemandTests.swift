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
            \t\task http://127.0.0.1:\(server.port)/tls/allowed
            \t}
            }
            https:// {
            \ttls internal {
            \t\ton_demand
            \t}
            \treverse_proxy 127.0.0.1:\(server.port)
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
        for handle in [caddy.standardOutput!, caddy.standardError!] { Thread.detachNewThread { while !handle.availableData.isEmpty {} } }
        let root = data.appendingPathComponent("caddy/pki/authorities/local/root.crt").path
        let through = eventually(timeout: 20) {
            ACMECertificateTests.curl([
                "--cacert", root, "--resolve", "links.shop.test:\(httpsPort):127.0.0.1", "https://links.shop.test:\(httpsPort)/health",
            ]).stdout.contains("ok")
        }
        #expect(through, "Caddy did not serve the project domain")
        // A name that is no project's: Caddy asks, hears 404, and gets no certificate.
        #expect(
            ACMECertificateTests.curl(["-k", "--resolve", "other.test:\(httpsPort):127.0.0.1", "https://other.test:\(httpsPort)/health"]).status != 0)
    }
}
