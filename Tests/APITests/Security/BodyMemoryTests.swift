import Foundation
import TestSupport
import Testing

/// Clients that announce large bodies and send all but their last byte hold that memory until the
/// body timeout. The outside test took the process to 3.1 GB with 3,000 of them. The server-wide
/// budget (`limits.max_buffered_body_bytes`) bounds what they can hold: past it the connection
/// that has made no progress for longest is answered 503 with `Retry-After` and closed.
@Suite(.serialized) struct BodyMemoryTests {
    /// Resident memory of a process, from /proc.
    static func residentBytes(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return nil }
        return kilobytes * 1024
    }

    @Test func stalledBodiesCannotGrowTheProcessPastTheBudget() throws {
        let (folder, file) = try Self.config(#"{"limits": {"max_buffered_body_bytes": 33554432, "max_connections_per_client": 512}}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = "memory-admin-key-0123456789"
        let server = try ServerProcess(["--config", file], environment: ["ATTRIBUTIOND_ADMIN_KEY": key, "ATTRIBUTIOND_LOG_LEVEL": "notice"])
        defer { _ = server.terminateAndWait() }
        let baseline = try #require(Self.residentBytes(server.process.pid))

        // 200 connections, each announcing 1 MiB and sending all of it but the last byte.
        let announced = 1 << 20
        let part = [UInt8](repeating: UInt8(ascii: "a"), count: announced - 1)
        var clients: [RawClient] = []
        for _ in 0..<200 {
            let client = try RawClient(port: server.port, receiveTimeout: 10)
            client.send("POST /api/sdk/v1/event HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: \(announced)\r\n\r\n")
            client.send(part)
            clients.append(client)
        }
        // About time: the bytes sent are read by the server as they arrive; a second lets them all in
        // before the memory is measured (the test is about what is held, not when).
        Thread.sleep(forTimeInterval: 1)
        let peak = try #require(Self.residentBytes(server.process.pid))
        #expect(peak - baseline < 96 << 20, "held \((peak - baseline) >> 20) MiB beyond the baseline for 200 MiB announced")

        // The ones let go were told why, and told when to come back.
        var refused = 0
        for client in clients.prefix(40) {
            guard let response = client.readResponse(), response.status == 503 else { continue }
            #expect(response.header("Retry-After") != nil)
            #expect(response.json?["error"] as? String == "overloaded")
            refused += 1
        }
        // The stalled holders go first (under load their progress times are close: most, not all).
        #expect(refused >= 10, "\(refused) of the first 40 refused")

        // The server still serves: a probe, and a whole body of its own.
        let health = try RawClient(port: server.port)
        health.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(health.readResponse()?.status == 200)
        let body = #"{"name":"Shop","web_url":"https://shop.example/\#(String(repeating: "p", count: 60_000))"}"#
        let admin = try RawClient(port: server.port)
        admin.send("POST /admin/v1/projects HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer \(key)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let answered = try #require(admin.readResponse())
        #expect(answered.status == 201 || answered.status == 422, "\(answered.status) \(answered.bodyText.prefix(200))")
    }

    static func config(_ json: String) throws -> (URL, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("attributiond.json")
        try Data(json.utf8).write(to: file)
        return (folder, file.path)
    }
}
