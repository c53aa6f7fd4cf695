import Foundation
import Synchronization
import TestSupport
import Testing

/// The built `attributiond` executable, beside the test bundle in the build folder.
func attributiondBinary() throws -> URL {
    let testBundle = URL(fileURLWithPath: CommandLine.arguments[0])
    var directory = testBundle.deletingLastPathComponent()
    for _ in 0..<3 {
        let candidate = directory.appendingPathComponent("attributiond")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "attributiond executable (run swift build first)"])
}

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the binary in `directory` (a new empty temporary folder by default, removed after the
/// run), without any ATTRIBUTIOND_* variables from the test's own environment.
func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> RunResult {
    let temporary = directory == nil ? FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-run-\(UUID().uuidString)") : nil
    let directory = directory ?? temporary!
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { if let temporary { try? FileManager.default.removeItem(at: temporary) } }
    let result = try ChildProcess.run(
        try attributiondBinary().path, arguments, environment: childEnvironment(environment),
        directory: directory.path)
    return RunResult(
        status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
        stderr: String(decoding: result.stderr, as: UTF8.self))
}

/// The test's environment without its ATTRIBUTIOND_* variables, plus `extra`.
/// Test servers reach nothing but 127.0.0.1: the daily fetch of the ECB's rates is off.
private func childEnvironment(_ extra: [String: String]) -> [String: String] {
    ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ATTRIBUTIOND_") }.merging(["ATTRIBUTIOND_FX_URL": ""]) { $1 }
        .merging(extra) { $1 }
}

/// A server process on a free port; its first stderr line names the address.
final class ServerProcess {
    let process: ChildProcess
    let folder: URL
    private(set) var port: UInt16 = 0
    /// Output read together with the "listening" line, after it.
    private(set) var outputAfterListening = ""
    /// Output before the "listening" line.
    private(set) var outputBeforeListening = ""
    var databasePath: String { folder.appendingPathComponent("db.sqlite").path }

    /// - Parameter folder: where the database lives (a new temporary folder by default).
    init(_ arguments: [String] = [], folder: URL? = nil, environment: [String: String] = [:], defaultDatabase: Bool = false) throws {
        self.folder = folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-cli-\(UUID().uuidString)")
        let database = defaultDatabase ? [] : ["--db", self.folder.appendingPathComponent("db.sqlite").path]
        try FileManager.default.createDirectory(at: self.folder, withIntermediateDirectories: true)
        let child = try ChildProcess(
            try attributiondBinary().path, ["serve", "--host", "127.0.0.1", "--port", "0"] + database + arguments,
            environment: childEnvironment(environment), directory: self.folder.path, error: true)
        process = child
        // Reading stderr blocks while the child is silent: a child that neither listens nor ends
        // within 20 s is killed, so the read below sees the end of its output.
        let started = Mutex(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 20) {
            started.withLock { if !$0 { child.send(SIGKILL) } }
        }
        defer { started.withLock { $0 = true } }
        var collected = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let data = process.standardError!.availableData
            if data.isEmpty { break }
            collected += String(decoding: data, as: UTF8.self)
            if let line = collected.split(separator: "\n").first(where: { $0.contains("\"listening\"") }),
                let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                let address = json["address"], let port = address.split(separator: ":").last.flatMap({ UInt16($0) })
            {
                self.port = port
                // What came in the same read after that line (a start-up warning can).
                if let range = collected.range(of: String(line)) {
                    outputAfterListening = String(collected[range.upperBound...])
                    outputBeforeListening = String(collected[..<range.lowerBound])
                }
                return
            }
        }
        process.send(SIGKILL)
        process.wait()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "server did not start: \(collected)"])
    }

    /// What the server wrote to stderr after its "listening" line, once it has exited.
    var remainingOutput: String {
        String(decoding: process.standardError!.readDataToEndOfFile(), as: UTF8.self)
    }

    /// The exit status, or 128 + the signal's number when a signal ended the process (as shells
    /// report it), so that a crash is never mistaken for `exit(1)`.
    func terminateAndWait(signal: Int32 = SIGTERM) -> Int32 {
        process.send(signal)
        return process.wait(orKillAfter: 60)
    }

    deinit {
        process.send(SIGTERM)
        process.wait(orKillAfter: 30)
        try? FileManager.default.removeItem(at: folder)
    }
}

@Suite struct CommandLineTests {
    @Test func badFlagsExitTwoNamingTheFlag() throws {
        let unknown = try run(["--bogus"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("--bogus"))
        let badValue = try run(["serve", "--port", "eighty"])
        #expect(badValue.status == 2)
        #expect(badValue.stderr.contains("--port"))
        let outOfRange = try run(["serve", "--port", "70000"])
        #expect(outOfRange.status == 2)
        let unknown2 = try run(["frobnicate"])
        #expect(
            unknown2.status == 2 && unknown2.stderr.contains("unknown command 'frobnicate'") && unknown2.stderr.contains("migrate-data"),
            "\(unknown2.stderr)")
        #expect(!unknown2.stderr.contains("--port"), "not serve's usage")
    }

    /// A first start with no admin key and no project: the server makes a key, prints it once
    /// with the dashboard's address, and answers to it (now and after a restart, when it prints
    /// nothing); `GET /` leads to the dashboard, whose sign-in page says where the key comes from.
    @Test func aFirstStartMakesAnAdminKeyAndShowsItOnce() throws {
        let server = try ServerProcess()
        var output = server.outputAfterListening
        let reading = DispatchSemaphore(value: 0)
        let more = Mutex("")
        let stream = server.process.standardError!
        DispatchQueue.global().async {
            var text = ""
            while !text.contains("Set ATTRIBUTIOND_ADMIN_KEY") {
                let data = stream.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            more.withLock { $0 = text }
            reading.signal()
        }
        if !output.contains("Set ATTRIBUTIOND_ADMIN_KEY") {
            _ = reading.wait(timeout: .now() + 5)
            output += more.withLock { $0 }
        }
        let key = try #require(
            output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("adm_") },
            "\(output)")
        #expect(output.contains("sign in at http://127.0.0.1:\(server.port)/dashboard"))
        #expect(key.count >= 32)
        func get(_ path: String, key: String? = nil, port: UInt16) throws -> TestResponse {
            let client = try RawClient(port: port)
            client.send("GET \(path) HTTP/1.1\r\nHost: t\r\n" + (key.map { "Authorization: Bearer \($0)\r\n" } ?? "") + "\r\n")
            return try #require(client.readResponse())
        }
        #expect(try get("/admin/v1/projects", key: key, port: server.port).status == 200)
        #expect(try get("/admin/v1/projects", key: "adm_not-the-key-0123456789", port: server.port).status == 401)
        let home = try get("/", port: server.port)
        #expect(home.status == 302 && home.header("Location") == "/dashboard/")
        let signIn = try get("/dashboard/sign-in", port: server.port)
        #expect(signIn.bodyText.contains("printed it once"))
        // Kept hashed with the database: the next start answers to it and prints nothing.
        #expect(server.terminateAndWait() == 0)
        let again = try ServerProcess(folder: server.folder)
        #expect(!again.outputAfterListening.contains("adm_"))
        #expect(try get("/admin/v1/projects", key: key, port: again.port).status == 200)
        #expect(try run(["project", "list", "--db", server.databasePath]).status == 0)
        #expect(again.terminateAndWait() == 0)
        #expect(!again.remainingOutput.contains("adm_"))
    }

    /// A first start that cannot listen (the port is taken) never keeps a key it could not show:
    /// the next start makes one and prints it.
    @Test func aFirstStartThatFailsKeepsNoUnshownAdminKey() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-keyfail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("db.sqlite").path
        let taken = try ServerProcess()  // holds a port
        let failed = try run(["serve", "--host", "127.0.0.1", "--port", String(taken.port), "--db", database])
        #expect(failed.status != 0, "\(failed.stderr)")
        #expect(try run(["project", "list", "--db", database]).status == 0)
        let next = try ServerProcess(folder: folder)
        var output = next.outputAfterListening
        let deadline = Date().addingTimeInterval(5)
        while !output.contains("adm_"), Date() < deadline {
            let data = next.process.standardError!.availableData
            if data.isEmpty { break }
            output += String(decoding: data, as: UTF8.self)
        }
        #expect(output.contains("adm_"), "the second start shows a key: \(output)")
        #expect(next.terminateAndWait() == 0)
    }

    /// A second server on the same SQLite file is refused, naming the first; commands still run.
    @Test func aSecondServerOnOneSQLiteFileIsRefused() throws {
        let first = try ServerProcess()
        let second = try run(["serve", "--host", "127.0.0.1", "--port", "0", "--db", first.databasePath])
        #expect(second.status != 0)
        #expect(
            second.stderr.contains("another attributiond server uses") && second.stderr.contains("process \(first.process.pid)"),
            "\(second.stderr)")
        #expect(try run(["project", "list", "--db", first.databasePath]).status == 0)
        // Once the first has stopped, the file is free.
        #expect(first.terminateAndWait() == 0)
        let again = try ServerProcess(folder: first.folder)
        #expect(again.port != 0)
        #expect(again.terminateAndWait() == 0)
    }

    /// Run from another folder, or with a mistyped --db, a command would make an empty database
    /// and report "no projects": it refuses, naming the path, and makes nothing.
    @Test func commandsRefuseADatabaseFileThatDoesNotExist() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-missing-\(UUID().uuidString)")
        let path = folder.appendingPathComponent("typo.sqlite").path
        for arguments in [
            ["project", "list"], ["stats", "--project", "p"], ["webhooks", "list", "--project", "p"], ["link", "create", "--project", "p"],
        ] {
            let result = try run(arguments + ["--db", path])
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("no database at \(path)"), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: folder.path))
        // migrate makes one; then the same command works.
        #expect(try run(["migrate", "--db", path]).status == 0)
        defer { try? FileManager.default.removeItem(at: folder) }
        let listed = try run(["project", "list", "--db", path])
        #expect(listed.status == 0, "\(listed.stderr)")
    }

    @Test func versionAndHelpExitZero() throws {
        let version = try run(["version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("attributiond "))
        #expect(version.stdout.contains("SQLite 3."))
        // The version lives in one place; the changelog's newest heading names the same.
        let changelog = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }.map { String($0.dropFirst(3).prefix { $0 != " " }) }
        #expect(version.stdout.hasPrefix("attributiond \(newest ?? "?") "), "\(version.stdout) against CHANGELOG.md's \(newest ?? "nothing")")
        let help = try run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("serve"))
    }

    @Test func serveAnswersHealthAndExitsZeroOnSIGTERM() throws {
        let server = try ServerProcess()
        let client = try RawClient(port: server.port)
        client.send(get("/health"))
        let response = try #require(client.readResponse())
        #expect(response.status == 200)
        #expect(response.bodyText == #"{"status":"ok"}"#)
        #expect(server.terminateAndWait() == 0)
    }

    @Test func sigtermClosesIdleKeepAliveConnectionsPromptly() throws {
        let server = try ServerProcess(["--drain-seconds", "8"])
        let idle = try RawClient(port: server.port)
        idle.send(get("/health"))
        #expect(idle.readResponse()?.status == 200)
        let started = Date()
        let status = server.terminateAndWait()
        #expect(status == 0, "\(status == 0 ? "" : server.remainingOutput)")
        #expect(idle.readUntilClosed())
        #expect(Date().timeIntervalSince(started) < 4)  // an idle connection does not wait out the drain
    }

    @Test func sigintAlsoDrainsAndExitsZero() throws {
        let server = try ServerProcess()
        #expect(server.terminateAndWait(signal: SIGINT) == 0)
    }

    @Test func sighupReopensTheLogFileAfterRotation() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-logs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("attributiond.log")
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_LOG_FILE": log.path])
        func request() throws {
            let client = try RawClient(port: server.port)
            client.send("GET /api/sdk/v1/resolve/nope123 HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = client.readResponse()
        }
        func contents(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }
        try request()
        #expect(eventually(timeout: 5) { contents(log).contains(#""route":"/api/sdk/v1/resolve/:code""#) })  // flushed every 100 ms
        let rotated = folder.appendingPathComponent("attributiond.log.1")
        try FileManager.default.moveItem(at: log, to: rotated)
        server.process.send(SIGHUP)
        #expect(eventually(timeout: 5) { contents(log).contains("reopened log file") })
        try request()
        #expect(eventually(timeout: 5) { contents(log).contains(#""status":404"#) })
        #expect(contents(rotated).components(separatedBy: "\"msg\":\"request\"").count == 2)  // the first request only
        #expect(server.terminateAndWait() == 0)
    }

    @Test func healthcheckExitCodes() throws {
        let server = try ServerProcess()
        #expect(try run(["healthcheck", "--url", "http://127.0.0.1:\(server.port)"]).status == 0)
        // The container sets only ATTRIBUTIOND_PORT: the check follows it.
        #expect(try run(["healthcheck"], environment: ["ATTRIBUTIOND_PORT": String(server.port)]).status == 0)
        _ = server.terminateAndWait()
        let down = try run(["healthcheck", "--url", "http://127.0.0.1:\(server.port)", "--timeout", "1"])
        #expect(down.status == 1)
        #expect(down.stderr.contains("no answer"))
        #expect(try run(["healthcheck", "--url", "ftp://example"]).status == 2)
    }

    @Test func portInUseFailsWithAMessage() throws {
        let first = try ServerProcess()
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-port-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", ".serve.lock"] { try? FileManager.default.removeItem(atPath: other + suffix) } }
        let second = try run(["serve", "--host", "127.0.0.1", "--port", String(first.port), "--db", other])
        #expect(second.status != 0)
        #expect(second.stderr.contains("Address already in use"), "\(second.stderr)")
        _ = first.terminateAndWait()
    }
}
