import Dispatch
import Foundation
import StoreContracts
import Synchronization
import TestSupport
import Testing

@_spi(StoreInternals) @testable import Store

/// Eight writers creating templates against a server process (each 201 only after its commit),
/// recording which were acknowledged.
private final class WriteLoad: @unchecked Sendable {
    static let adminKey = "durability-admin-key-0123"
    let acknowledged = Mutex<[String]>([])
    private let stop = Atomic<Bool>(false)
    private let group = DispatchGroup()

    /// Starts the writers; `freshConnections` opens one connection per write (a draining server
    /// closes kept-alive ones).
    init(port: UInt16, freshConnections: Bool) throws {
        let create = try RawClient(port: port)
        create.send(
            "POST /admin/v1/projects HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(Self.adminKey)\r\nContent-Length: 15\r\n\r\n{\"name\":\"Shop\"}")
        let projectID = try #require(create.readResponse()?.json?["id"] as? String)
        for writer in 0..<8 {
            DispatchQueue.global().async(group: group) { [self] in
                var kept: RawClient?
                var n = 0
                while !stop.load(ordering: .relaxed) {
                    guard
                        let client = freshConnections
                            ? try? RawClient(port: port, receiveTimeout: 10)
                            : kept ?? (try? RawClient(port: port, receiveTimeout: 10))
                    else { return }
                    kept = client
                    let slug = "w\(writer)-\(n)"
                    let body = #"{"slug":"\#(slug)"}"#
                    client.send(
                        "POST /admin/v1/projects/\(projectID)/templates HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(Self.adminKey)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    )
                    guard let response = client.readResponse(), response.status == 201 else { return }
                    acknowledged.withLock { $0.append(slug) }
                    n += 1
                }
            }
        }
    }

    /// Waits until the load is well under way, however busy the machine.
    func waitForAcknowledgements(_ count: Int) {
        _ = eventually(timeout: 30) { acknowledged.withLock { $0.count } >= count }
    }

    func finish() -> (writersStopped: Bool, acknowledged: [String]) {
        stop.store(true, ordering: .relaxed)
        let stopped = group.wait(timeout: .now() + 10) == .success
        return (stopped, acknowledged.withLock { $0 })
    }
}

private func storedSlugs(_ path: String) throws -> Set<String> {
    let connection = try SQLiteConnection(path: path, mode: .readOnly)
    return Set(try connection.query("SELECT slug FROM templates") { $0.string(0) })
}

@Suite struct DurabilityTests {
    /// The server is killed with SIGKILL mid-load; every write acknowledged before must be there.
    @Test func everyAcknowledgedWriteSurvivesSIGKILL() throws {
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_ADMIN_KEY": WriteLoad.adminKey])
        let load = try WriteLoad(port: server.port, freshConnections: false)
        load.waitForAcknowledgements(100)
        server.process.send(SIGKILL)  // no chance to clean up
        server.process.wait()
        let (stopped, acked) = load.finish()
        #expect(stopped)
        #expect(acked.count >= 100, "the load should have produced many writes")
        _ = try Database(path: server.databasePath)  // reopening recovers the WAL
        let stored = try storedSlugs(server.databasePath)
        let lost = acked.filter { !stored.contains($0) }
        #expect(lost.isEmpty, "acknowledged but lost: \(lost.prefix(10))")
    }

    /// The same load, stopped with SIGTERM: the server drains, exits 0, loses no acknowledged
    /// write, and leaves the WAL folded back into the database file.
    @Test func sigtermUnderLoadLosesNoAcknowledgedWrite() throws {
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_ADMIN_KEY": WriteLoad.adminKey])
        let load = try WriteLoad(port: server.port, freshConnections: true)
        load.waitForAcknowledgements(100)
        #expect(server.terminateAndWait() == 0)
        let (stopped, acked) = load.finish()
        #expect(stopped)
        #expect(acked.count >= 100)
        let walSize = (try? FileManager.default.attributesOfItem(atPath: server.databasePath + "-wal")[.size] as? Int) ?? 0
        #expect(walSize == 0)  // checkpointed (TRUNCATE) on the way out
        let stored = try storedSlugs(server.databasePath)
        #expect(acked.filter { !stored.contains($0) }.isEmpty)
    }
}
