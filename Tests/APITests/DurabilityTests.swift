import Dispatch
import Foundation
import Synchronization
import Testing
@testable import Store
import TestSupport

@Suite struct DurabilityTests {
    /// Writers keep creating templates (each answered 201 only after its commit) while the server is
    /// killed with SIGKILL; every template acknowledged before the kill must be in the database.
    @Test func everyAcknowledgedWriteSurvivesSIGKILL() throws {
        let adminKey = "durability-admin-key-0123"
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_ADMIN_KEY": adminKey])
        let port = server.port
        let create = try RawClient(port: port)
        create.send("POST /admin/v1/projects HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(adminKey)\r\nContent-Length: 15\r\n\r\n{\"name\":\"Shop\"}")
        let projectID = try #require(create.readResponse()?.json?["id"] as? String)

        let acknowledged = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        let group = DispatchGroup()
        for writer in 0..<8 {
            DispatchQueue.global().async(group: group) {
                guard let client = try? RawClient(port: port, receiveTimeout: 10) else { return }
                var n = 0
                while !stop.load(ordering: .relaxed) {
                    let slug = "w\(writer)-\(n)"
                    let body = #"{"slug":"\#(slug)"}"#
                    client.send("POST /admin/v1/projects/\(projectID)/templates HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(adminKey)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                    guard let response = client.readResponse(), response.status == 201 else { return }
                    acknowledged.withLock { $0.append(slug) }
                    n += 1
                }
            }
        }
        // Once the load is well under way (however busy the machine), kill the server mid-flight,
        // without any chance to clean up.
        let deadline = Date().addingTimeInterval(30)
        while acknowledged.withLock({ $0.count }) < 100, Date() < deadline { usleep(10_000) }
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        stop.store(true, ordering: .relaxed)
        #expect(group.wait(timeout: .now() + 10) == .success)

        let acked = acknowledged.withLock { $0 }
        #expect(acked.count >= 100, "the load should have produced many writes")
        let database = try Database(path: server.databasePath)  // reopening recovers the WAL
        let stored = Set(try database.read { try $0.query("SELECT slug FROM templates") { $0.string(0) } })
        let lost = acked.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "acknowledged but lost: \(lost.prefix(10))")
    }

    /// The same load, stopped with SIGTERM: the server drains, exits 0, loses no acknowledged
    /// write, and leaves the WAL folded back into the database file.
    @Test func sigtermUnderLoadLosesNoAcknowledgedWrite() throws {
        let adminKey = "durability-admin-key-0123"
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_ADMIN_KEY": adminKey])
        let port = server.port
        let create = try RawClient(port: port)
        create.send("POST /admin/v1/projects HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(adminKey)\r\nContent-Length: 15\r\n\r\n{\"name\":\"Shop\"}")
        let projectID = try #require(create.readResponse()?.json?["id"] as? String)
        let acknowledged = Mutex<[String]>([])
        let stop = Atomic<Bool>(false)
        let group = DispatchGroup()
        for writer in 0..<8 {
            DispatchQueue.global().async(group: group) {
                var n = 0
                while !stop.load(ordering: .relaxed) {
                    // A new connection per write: the draining server closes kept-alive ones.
                    guard let client = try? RawClient(port: port, receiveTimeout: 10) else { return }
                    let slug = "t\(writer)-\(n)"
                    let body = #"{"slug":"\#(slug)"}"#
                    client.send("POST /admin/v1/projects/\(projectID)/templates HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(adminKey)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                    guard let response = client.readResponse(), response.status == 201 else { return }
                    acknowledged.withLock { $0.append(slug) }
                    n += 1
                }
            }
        }
        let deadline = Date().addingTimeInterval(30)
        while acknowledged.withLock({ $0.count }) < 100, Date() < deadline { usleep(10_000) }
        #expect(server.terminateAndWait() == 0)
        stop.store(true, ordering: .relaxed)
        #expect(group.wait(timeout: .now() + 10) == .success)
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count >= 100)
        let walSize = (try? FileManager.default.attributesOfItem(atPath: server.databasePath + "-wal")[.size] as? Int) ?? 0
        #expect(walSize == 0)  // checkpointed (TRUNCATE) on the way out
        let connection = try SQLiteConnection(path: server.databasePath, mode: .readOnly)
        let stored = Set(try connection.query("SELECT slug FROM templates") { $0.string(0) })
        #expect(acked.filter { !stored.contains($0) }.isEmpty)
    }
}
