import Foundation
import TestSupport
import Testing

/// Certificates the server gets by itself: Pebble (Let's Encrypt's ACME test CA) on loopback with
/// a certificate this test makes, the real server as a process, a domain added through the admin
/// API, and curl checking what the HTTPS listener serves for that name against Pebble's root.
@Suite(.serialized) struct ACMECertificateTests {
    static let adminKey = "acme-test-admin-key-0123456789abcdef"

    /// Pebble with its own HTTPS certificate (made here, also the root the server trusts it with).
    final class Pebble {
        let process: ChildProcess
        let directoryURL: String
        let managementPort: Int
        let trustedRoots: String

        /// - Parameters: httpPort: where Pebble fetches HTTP-01 answers; dnsServer: the resolver it
        ///   asks for the domains' addresses.
        init(folder: URL, environment: [String: String], port: Int = freePort(), httpPort: Int = 5002, dnsServer: String? = nil) throws {
            let cert = folder.appendingPathComponent("pebble-cert.pem").path
            let key = folder.appendingPathComponent("pebble-key.pem").path
            let made = try ChildProcess.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
                    "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                ])
            guard made.status == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl: \(made.stderr)"]) }
            managementPort = freePort()
            let config = folder.appendingPathComponent("pebble.json")
            try Data(
                #"""
                {"pebble": {"listenAddress": "127.0.0.1:\#(port)", "managementListenAddress": "127.0.0.1:\#(managementPort)",
                 "certificate": "\#(cert)", "privateKey": "\#(key)", "httpPort": \#(httpPort), "tlsPort": 5001,
                 "ocspResponderURL": "", "externalAccountBindingRequired": false}}
                """#.utf8
            ).write(to: config)
            process = try ChildProcess(
                "/usr/bin/pebble", ["-config", config.path, "-strict"] + (dnsServer.map { ["-dnsserver", $0] } ?? []),
                environment: ProcessInfo.processInfo.environment.merging(environment) { $1 },
                output: true, error: true)
            for handle in [process.standardOutput!, process.standardError!] {
                Thread.detachNewThread { while !handle.availableData.isEmpty {} }  // drained, so pebble never blocks on a full pipe
            }
            directoryURL = "https://127.0.0.1:\(port)/dir"
            trustedRoots = cert
            guard eventually(timeout: 20, { curl(["--cacert", cert, directoryURL]).status == 0 }) else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "pebble did not start"])
            }
        }

        /// The root Pebble issues under (made anew at every start).
        func issuingRoot(into file: URL) throws {
            let root = curl(["-k", "https://127.0.0.1:\(managementPort)/roots/0"])
            try Data(root.stdout.utf8).write(to: file)
        }

        deinit {
            process.send(SIGTERM)
            _ = process.wait(orKillAfter: 10)
        }
    }

    /// A new empty folder for one test's files (the caller removes it).
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-acme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func curl(_ arguments: [String]) -> (status: Int32, stdout: String) {
        guard let result = try? ChildProcess.run("/usr/bin/curl", ["-sS", "--max-time", "10"] + arguments) else { return (-1, "") }
        return (result.status, String(decoding: result.stdout, as: UTF8.self))
    }

    static func admin(_ port: UInt16, _ method: String, _ path: String, _ json: String? = nil) -> (status: Int32, stdout: String) {
        curl(
            ["-X", method, "-H", "Authorization: Bearer \(adminKey)", "-H", "Content-Type: application/json"] + (json.map { ["-d", $0] } ?? [])
                + ["http://127.0.0.1:\(port)\(path)"])
    }

    @Test func aDomainAddedThroughTheAdminAPIGetsACertificateServedByItsName() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pebble") else {
            Issue.record("pebble is not installed: run scripts/ensure-deps --test")
            return
        }
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The CA takes every challenge as answered: the names do not resolve here.
        let pebble = try Pebble(folder: folder, environment: ["PEBBLE_VA_ALWAYS_VALID": "1", "PEBBLE_VA_NOSLEEP": "1"])
        let httpsPort = freePort()
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"tls": {"port": \#(httpsPort)}}"#.utf8).write(to: config)
        let server = try ServerProcess(
            [], folder: folder.appendingPathComponent("server"),
            environment: [
                "ATTRIBUTIOND_ADMIN_KEY": Self.adminKey, "ATTRIBUTIOND_CONFIG": config.path, "ATTRIBUTIOND_LOG_LEVEL": "notice",
                "ATTRIBUTIOND_ACME_DIRECTORY_URL": pebble.directoryURL, "ATTRIBUTIOND_ACME_EMAIL": "ops@shop.test",
                "ATTRIBUTIOND_ACME_CA_ROOTS": pebble.trustedRoots, "ATTRIBUTIOND_ACME_VERIFY": "false",
            ])
        let created = Self.admin(server.port, "POST", "/admin/v1/projects", #"{"name":"Shop"}"#)
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)
        let added = Self.admin(server.port, "POST", "/admin/v1/projects/\(project)/domains", #"{"domain":"links.shop.test"}"#)
        #expect(added.stdout.contains(#""domain":"links.shop.test""#), "\(added.stdout)")

        // Served by name once issued, with the chain up to Pebble's root.
        let root = folder.appendingPathComponent("pebble-root.pem")
        try pebble.issuingRoot(into: root)
        let served = eventually(timeout: 40) {
            Self.curl([
                "--cacert", root.path, "--resolve", "links.shop.test:\(httpsPort):127.0.0.1", "https://links.shop.test:\(httpsPort)/health",
            ]).stdout.contains("ok")
        }
        #expect(served, "no certificate for links.shop.test was served")
        let domains = Self.admin(server.port, "GET", "/admin/v1/projects/\(project)/domains").stdout
        #expect(domains.contains(#""certificate_status":"issued""#), "\(domains)")
        // Another name gets no certificate: the handshake fails.
        #expect(
            Self.curl(["-k", "--resolve", "other.test:\(httpsPort):127.0.0.1", "https://other.test:\(httpsPort)/health"]).status != 0)
        // The certificate and its key are in the store, for every node (and the next start).
        let metrics = Self.curl(["-H", "Authorization: Bearer \(Self.adminKey)", "http://127.0.0.1:\(server.port)/metrics"]).stdout
        #expect(metrics.contains(#"attributiond_certificate_expiry_seconds{domain="links.shop.test"}"#), "\(metrics.prefix(400))")
    }

    /// The CA checks the challenge for real: it resolves the name through Pebble's DNS test server
    /// (every name is 127.0.0.1) and fetches the token from the server's HTTP port.
    @Test func theCAFetchesTheHTTP01AnswerFromTheServer() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pebble-challtestsrv") else {
            Issue.record("pebble is not installed: run scripts/ensure-deps --test")
            return
        }
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let dnsPort = freePort()
        let dns = try ChildProcess(
            "/usr/bin/pebble-challtestsrv",
            [
                "-dns01", "127.0.0.1:\(dnsPort)", "-http01", "", "-https01", "", "-tlsalpn01", "", "-defaultIPv6", "",
                "-management", "127.0.0.1:\(freePort())",
            ], output: true, error: true)
        defer {
            dns.send(SIGTERM)
            _ = dns.wait(orKillAfter: 10)
        }
        for handle in [dns.standardOutput!, dns.standardError!] { Thread.detachNewThread { while !handle.availableData.isEmpty {} } }
        let pebblePort = freePort()
        let httpsPort = freePort()
        let config = folder.appendingPathComponent("config.json")
        try Data(#"{"tls": {"port": \#(httpsPort)}}"#.utf8).write(to: config)
        let pebbleRoots = folder.appendingPathComponent("pebble-cert.pem").path
        let server = try ServerProcess(
            [], folder: folder.appendingPathComponent("server"),
            environment: [
                "ATTRIBUTIOND_ADMIN_KEY": Self.adminKey, "ATTRIBUTIOND_CONFIG": config.path, "ATTRIBUTIOND_LOG_LEVEL": "notice",
                "ATTRIBUTIOND_ACME_DIRECTORY_URL": "https://127.0.0.1:\(pebblePort)/dir", "ATTRIBUTIOND_ACME_CA_ROOTS": pebbleRoots,
                "ATTRIBUTIOND_ACME_VERIFY": "false",
            ])
        let pebble = try Pebble(
            folder: folder, environment: ["PEBBLE_VA_NOSLEEP": "1"], port: pebblePort, httpPort: Int(server.port),
            dnsServer: "127.0.0.1:\(dnsPort)")
        let created = Self.admin(server.port, "POST", "/admin/v1/projects", #"{"name":"Shop"}"#)
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)
        _ = Self.admin(server.port, "POST", "/admin/v1/projects/\(project)/domains", #"{"domain":"go.shop.test"}"#)
        let root = folder.appendingPathComponent("pebble-root.pem")
        try pebble.issuingRoot(into: root)
        var listed = ""
        let issued = eventually(timeout: 40) {
            listed = Self.admin(server.port, "GET", "/admin/v1/projects/\(project)/domains").stdout
            return listed.contains(#""certificate_status":"issued""#) || listed.contains(#""certificate_status":"failing""#)
        }
        #expect(issued && listed.contains(#""certificate_status":"issued""#), "\(listed)")
        #expect(
            Self.curl(["--cacert", root.path, "--resolve", "go.shop.test:\(httpsPort):127.0.0.1", "https://go.shop.test:\(httpsPort)/health"])
                .stdout.contains("ok"))
        // The answer is gone once the order is done.
        #expect(Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/.well-known/acme-challenge/x"]).stdout == "404")
    }

    /// Two nodes on one PostgreSQL database: whichever gets the certificate, both serve it.
    @Test func twoNodesOnPostgreSQLServeTheSameCertificate() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/pebble") else {
            Issue.record("pebble is not installed: run scripts/ensure-deps --test")
            return
        }
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pebble = try Pebble(folder: folder, environment: ["PEBBLE_VA_ALWAYS_VALID": "1", "PEBBLE_VA_NOSLEEP": "1"])
        let database = try PostgresCluster.shared().newDatabase()
        func node(_ name: String) throws -> (ServerProcess, Int) {
            let httpsPort = freePort()
            let config = folder.appendingPathComponent("\(name).json")
            try Data(#"{"tls": {"port": \#(httpsPort)}}"#.utf8).write(to: config)
            let server = try ServerProcess(
                ["--database", database], folder: folder.appendingPathComponent(name),
                environment: [
                    "ATTRIBUTIOND_ADMIN_KEY": Self.adminKey, "ATTRIBUTIOND_CONFIG": config.path, "ATTRIBUTIOND_LOG_LEVEL": "notice",
                    "ATTRIBUTIOND_ACME_DIRECTORY_URL": pebble.directoryURL, "ATTRIBUTIOND_ACME_CA_ROOTS": pebble.trustedRoots,
                    "ATTRIBUTIOND_ACME_VERIFY": "false",
                ])
            return (server, httpsPort)
        }
        let (first, firstHTTPS) = try node("a")
        let (second, secondHTTPS) = try node("b")
        let created = Self.admin(first.port, "POST", "/admin/v1/projects", #"{"name":"Shop"}"#)
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)
        _ = Self.admin(second.port, "POST", "/admin/v1/projects/\(project)/domains", #"{"domain":"shared.shop.test"}"#)
        let root = folder.appendingPathComponent("pebble-root.pem")
        try pebble.issuingRoot(into: root)
        for port in [firstHTTPS, secondHTTPS] {
            let served = eventually(timeout: 40) {
                Self.curl(["--cacert", root.path, "--resolve", "shared.shop.test:\(port):127.0.0.1", "https://shared.shop.test:\(port)/health"])
                    .stdout.contains("ok")
            }
            #expect(served, "the node on \(port) does not serve the certificate")
        }
    }

    @Test func aCAThatCannotBeReachedIsRetriedLaterNotHammered() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServerProcess(
            [], folder: folder,
            environment: [
                "ATTRIBUTIOND_ADMIN_KEY": Self.adminKey, "ATTRIBUTIOND_LOG_LEVEL": "notice",
                "ATTRIBUTIOND_ACME_DIRECTORY_URL": "https://127.0.0.1:\(freePort())/dir", "ATTRIBUTIOND_ACME_VERIFY": "false",
            ])
        let created = Self.admin(server.port, "POST", "/admin/v1/projects", #"{"name":"Shop"}"#)
        let project = try #require((try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])?["id"] as? String)
        _ = Self.admin(server.port, "POST", "/admin/v1/projects/\(project)/domains", #"{"domain":"links.shop.test"}"#)
        var listed = ""
        #expect(
            eventually(timeout: 15) {
                listed = Self.admin(server.port, "GET", "/admin/v1/projects/\(project)/domains").stdout
                return listed.contains(#""certificate_status":"failing""#)
            }, "\(listed)")
        let domain = try #require(
            ((try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])?["domains"] as? [[String: Any]])?.first)
        #expect(domain["certificate_failures"] as? Int == 1)
        #expect((domain["certificate_error"] as? String)?.isEmpty == false)
        // The next attempt waits a minute after the first failure.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let retryAt = try #require(
            (domain["certificate_retry_at"] as? String).flatMap { formatter.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) })
        #expect(retryAt.timeIntervalSinceNow > 40 && retryAt.timeIntervalSinceNow <= 61, "\(retryAt)")
    }
}
