import Foundation
import TestSupport
import Testing

@testable import App

/// `serve`'s export job in the real process: a test-mode project's hour is exported once its clock
/// passes the hour's end, by a thread of its own at nice 19.
@Suite struct ExportJobTests {
    func send(_ port: UInt16, _ method: String, _ path: String, _ body: String? = nil) throws -> TestResponse? {
        let client = try RawClient(port: port)
        client.send(
            "\(method) \(path) HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer export-admin-key-0123456789\r\n"
                + (body.map { "Content-Type: application/json\r\nContent-Length: \($0.utf8.count)\r\n\r\n\($0)" } ?? "\r\n"))
        return client.readResponse()
    }

    @Test func serveExportsAnHourOnceTheProjectsClockPassesItsEnd() throws {
        let server = try ServerProcess(
            [], environment: ["ATTRIBUTIOND_ADMIN_KEY": "export-admin-key-0123456789", "ATTRIBUTIOND_EXPORT_INTERVAL_SECONDS": "1"])
        let created = try #require(try send(server.port, "POST", "/admin/v1/projects", #"{"name":"Shop","test_mode":true}"#))
        let projectID = try #require(created.json?["id"] as? String, "\(created.bodyText)")
        let folder = server.folder.appendingPathComponent("export").path
        let saved = try send(server.port, "PUT", "/admin/v1/projects/\(projectID)/export", #"{"destination":"file://\#(folder)"}"#)
        #expect(saved?.status == 200, "\(saved?.bodyText ?? "")")
        let first = try #require((saved?.json?["first_hour"] as? String).flatMap { ExportHour(text: String($0.prefix(13))) })
        let manifest = folder + "/" + first.manifestKey
        // Nothing while the hour is open; written within a pass or two once the clock passes it.
        #expect(!eventually(timeout: 2.5) { FileManager.default.fileExists(atPath: manifest) })
        #expect(try send(server.port, "POST", "/admin/v1/projects/\(projectID)/clock", #"{"advance_seconds":3600}"#)?.status == 200)
        #expect(eventually(timeout: 20) { FileManager.default.fileExists(atPath: manifest) }, "\(manifest)")

        // One thread of the process, the job's, runs at the lowest priority (field 19 of its stat
        // line, after the command name in parentheses); every other thread at the default.
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.process.pid)/task")
        let threads = tasks.compactMap { task -> (name: String, nice: String)? in
            guard let stat = try? String(contentsOfFile: "/proc/\(server.process.pid)/task/\(task)/stat", encoding: .utf8),
                let nice = stat.split(separator: ")").last?.split(separator: " ").dropFirst(16).first
            else { return nil }
            let name = (try? String(contentsOfFile: "/proc/\(server.process.pid)/task/\(task)/comm", encoding: .utf8)) ?? ""
            return (name.trimmingCharacters(in: .whitespacesAndNewlines), String(nice))
        }
        let lowest = threads.filter { $0.nice == "19" }
        #expect(lowest.count == 1, "\(threads)")
        #expect(server.terminateAndWait() == 0)
    }
}
