import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// Admin writes wait for their commit on the handler pool. Their completions once needed a worker
/// of the same Dispatch pool those waiting handlers occupied, so the first burst of concurrent
/// writes after a start stalled for seconds (about 10 writes in 2 s, some timing out after 5 s).
@Suite struct ConcurrentAdminWriteTests {
    @Test func theFirstBurstOfConcurrentWritesAfterAStartIsNotStalled() throws {
        let adminKey = "concurrent-admin-key-0123456789"
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_ADMIN_KEY": adminKey, "ATTRIBUTIOND_LOG_LEVEL": "notice"])
        let create = try RawClient(port: server.port)
        create.send(
            "POST /admin/v1/projects HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(adminKey)\r\nContent-Length: 15\r\n\r\n{\"name\":\"Shop\"}")
        let projectID = try #require(create.readResponse()?.json?["id"] as? String)
        let port = server.port
        let created = Atomic<Int>(0)
        let started = Date()
        // Eight threads of our own: Dispatch would run only about one per core at a time.
        let finished = DispatchGroup()
        for writer in 0..<8 {
            finished.enter()
            Thread.detachNewThread {
                defer { finished.leave() }
                for n in 0..<25 {
                    guard let client = try? RawClient(port: port, receiveTimeout: 20) else { return }
                    let body = #"{"slug":"w\#(writer)-\#(n)"}"#
                    client.send(
                        "POST /admin/v1/projects/\(projectID)/templates HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(adminKey)\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
                    )
                    guard client.readResponse()?.status == 201 else { return }
                    created.add(1, ordering: .relaxed)
                }
            }
        }
        finished.wait()
        let elapsed = Date().timeIntervalSince(started)
        #expect(created.load(ordering: .relaxed) == 200)
        // 200 commits take about 0.1 s here; with the stall they took 7 s (debug build, same machine).
        #expect(elapsed < 4, "200 concurrent writes took \(elapsed) s")
    }
}
