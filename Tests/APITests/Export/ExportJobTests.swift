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

        // The job's thread, by name, runs at the lowest priority (field 19 of its stat line).
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.process.pid)/task")
        let niceness = try tasks.compactMap { task -> String? in
            let name = try String(contentsOfFile: "/proc/\(server.process.pid)/task/\(task)/comm", encoding: .utf8)
            guard name.hasPrefix("export-job") else { return nil }
            let stat = try String(contentsOfFile: "/proc/\(server.process.pid)/task/\(task)/stat", encoding: .utf8)
            // After the command name in parentheses: state is field 3, nice field 19.
            return stat.split(separator: ")").last?.split(separator: " ").dropFirst(16).first.map(String.init)
        }
        #expect(niceness == ["19"], "\(niceness)")
        #expect(server.terminateAndWait() == 0)
    }
}
