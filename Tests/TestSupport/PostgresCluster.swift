public import Foundation
import Glibc
import Synchronization

/// A throwaway PostgreSQL cluster for tests: `initdb` into a temporary folder, `pg_ctl start` on a
/// free port of 127.0.0.1 (and a socket in that folder), removed on `stop()` or deinit. Run as
/// the `postgres` user when the tests run as root (initdb refuses root). Debian's server binaries
/// (`postgresql`, installed by `scripts/ensure-deps --test`) are found under /usr/lib/postgresql.
public final class PostgresCluster: @unchecked Sendable {
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public let folder: URL
    public let port: Int
    private let bin: String
    private var running = false
    /// The certificate a TLS cluster presents (self-signed, for 127.0.0.1): the root to verify it by.
    public let certificatePath: String?

    /// `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication on loopback).
    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

    /// - Parameter tls: serve TLS with a new self-signed certificate for 127.0.0.1 and refuse
    ///   connections that do not use it (`hostnossl … reject`).
    public init(tls: Bool = false) throws {
        guard
            let version = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?
                .sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }).first(where: {
                    FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\($0)/bin/pg_ctl")
                })
        else {
            throw Unavailable(description: "no PostgreSQL server under /usr/lib/postgresql: run scripts/ensure-deps --test")
        }
        bin = "/usr/lib/postgresql/\(version)/bin"
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-pg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = Self.freePort()
        certificatePath = tls ? folder.appendingPathComponent("server.crt").path : nil
        if tls { try Self.makeCertificate(in: folder) }
        if getuid() == 0 { _ = try ChildProcess.run("/bin/chown", ["-R", "postgres:postgres", folder.path]) }
        let initialized = try run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale", "C"])
        guard initialized.status == 0 else {
            throw Unavailable(description: "initdb failed: \(String(decoding: initialized.stderr, as: UTF8.self))")
        }
        if tls {
            let rules = "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n"
            try rules.write(toFile: "\(data)/pg_hba.conf", atomically: false, encoding: .utf8)
        }
        try start()
    }

    deinit { stop() }

    private var data: String { folder.appendingPathComponent("data").path }

    /// Starts (or starts again) the server; returns once it accepts connections. `fsync=off`: the
    /// machine does not crash under a test, and a killed server still keeps every commit (the WAL
    /// is written at each commit, only not forced to the disk).
    public func start() throws {
        var options = "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=400"
        if let certificatePath {
            options += " -c ssl=on -c ssl_cert_file=\(certificatePath) -c ssl_key_file=\(folder.appendingPathComponent("server.key").path)"
        }
        let started = try run(
            "pg_ctl", ["-D", data, "-l", folder.appendingPathComponent("server.log").path, "-o", options, "-w", "-t", "30", "start"])
        guard started.status == 0 else {
            let log = (try? String(contentsOf: folder.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            throw Unavailable(description: "pg_ctl start failed: \(String(decoding: started.stderr, as: UTF8.self)) \(log)")
        }
        running = true
    }

    /// Stops the server at once (`-m immediate`: what a crash or a failover looks like to clients).
    public func kill() {
        guard running else { return }
        _ = try? run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
        running = false
    }

    /// Stops the server and removes the cluster.
    public func stop() {
        if running { _ = try? run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]) }
        running = false
        try? FileManager.default.removeItem(at: folder)
    }

    /// One cluster for the whole test process, for tests that neither stop nor kill it: each asks
    /// for a database of its own (`newDatabase()`), which costs a `CREATE DATABASE` instead of an
    /// `initdb` (seconds of CPU each, and many tests run at once on two cores). Stopped and removed
    /// when the process exits.
    public static func shared() throws -> PostgresCluster { try sharedCluster.get() }

    private static let sharedCluster: Result<PostgresCluster, any Error> = {
        let result = Result { try PostgresCluster() }
        if case .success = result { atexit { if case .success(let cluster) = PostgresCluster.sharedCluster { cluster.stop() } } }
        return result
    }()

    private let databases = Mutex(0)

    /// A new empty database on this cluster; its URL.
    public func newDatabase() throws -> String {
        let number = databases.withLock { count in
            count += 1
            return count
        }
        let name = "test_\(number)"
        let created = try run("createdb", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", name])
        guard created.status == 0 else { throw Unavailable(description: "createdb failed: \(String(decoding: created.stderr, as: UTF8.self))") }
        return "postgres://postgres@127.0.0.1:\(port)/\(name)"
    }

    /// A self-signed certificate whose subject alternative name is 127.0.0.1 (so `verify-full`
    /// accepts it when it is also the root), and its key, readable by its owner only.
    private static func makeCertificate(in folder: URL) throws {
        let made = try ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1",
                "-keyout", folder.appendingPathComponent("server.key").path, "-out", folder.appendingPathComponent("server.crt").path,
            ])
        guard made.status == 0 else { throw Unavailable(description: "openssl req failed: \(String(decoding: made.stderr, as: UTF8.self))") }
        chmod(folder.appendingPathComponent("server.key").path, 0o600)
    }

    private func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, stdout: Data, stderr: Data) {
        if getuid() == 0 { return try ChildProcess.run("/usr/sbin/runuser", ["-u", "postgres", "--", "\(bin)/\(tool)"] + arguments) }
        return try ChildProcess.run("\(bin)/\(tool)", arguments)
    }

    private static func freePort() -> Int { TestSupport.freePort() }
}
