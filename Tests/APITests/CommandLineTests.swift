import Foundation
import Testing
import TestSupport

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

func run(_ arguments: [String]) throws -> RunResult {
    let process = Process()
    process.executableURL = try attributiondBinary()
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return RunResult(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                     stderr: String(decoding: stderr, as: UTF8.self))
}

/// A server process on a free port; its first stderr line names the address.
final class ServerProcess {
    let process = Process()
    let stderr = Pipe()
    private(set) var port: UInt16 = 0

    init(_ arguments: [String] = []) throws {
        process.executableURL = try attributiondBinary()
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var collected = ""
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let data = stderr.fileHandleForReading.availableData
            if data.isEmpty { break }
            collected += String(decoding: data, as: UTF8.self)
            if let line = collected.split(separator: "\n").first(where: { $0.contains("\"listening\"") }),
               let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
               let address = json["address"], let port = address.split(separator: ":").last.flatMap({ UInt16($0) }) {
                self.port = port
                return
            }
        }
        process.terminate()
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "server did not start: \(collected)"])
    }

    func terminateAndWait(signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }
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
    }

    @Test func versionAndHelpExitZero() throws {
        let version = try run(["version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("attributiond "))
        #expect(version.stdout.contains("SQLite 3."))
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
        #expect(server.terminateAndWait() == 0)
        #expect(idle.readUntilClosed())
        #expect(Date().timeIntervalSince(started) < 4)  // an idle connection does not wait out the drain
    }

    @Test func sigintAlsoDrainsAndExitsZero() throws {
        let server = try ServerProcess()
        #expect(server.terminateAndWait(signal: SIGINT) == 0)
    }

    @Test func portInUseFailsWithAMessage() throws {
        let first = try ServerProcess()
        let second = try run(["serve", "--host", "127.0.0.1", "--port", String(first.port)])
        #expect(second.status != 0)
        #expect(second.stderr.contains("Address already in use"))
        _ = first.terminateAndWait()
    }
}
