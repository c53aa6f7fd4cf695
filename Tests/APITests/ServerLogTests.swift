import Foundation
import TestSupport
import Testing

/// `log_level` filters every line the server writes, and the services start in order and stop in
/// the reverse one (their lines at debug level).
@Suite struct ServerLogTests {
    static let key = "log-test-admin-key-0123456789abcdef"

    static func lines(_ text: String) -> [[String: String]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
    }

    @Test func atDebugEveryServiceSaysWhenItStartsAndStopsInReverseOrder() throws {
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_ADMIN_KEY": Self.key, "ATTRIBUTIOND_LOG_LEVEL": "debug"])
        let started = Self.lines(server.outputBeforeListening + server.outputAfterListening)
            .filter { $0["msg"] == "started" }.compactMap { $0["service"] }
        let order = [
            "store", "request log", "outbound transport", "outbox", "click retention", "cost pulls", "export transport", "raw export",
            "dashboard warm-up", "listeners",
        ]
        #expect(started == order)
        #expect(server.terminateAndWait() == 0)
        let after = Self.lines(server.remainingOutput)
        #expect(after.filter { $0["msg"] == "stopped" && $0["service"] != nil }.compactMap { $0["service"] } == order.reversed())
        #expect(after.last?["msg"] == "stopped" && after.last?["level"] == "notice")
    }

    @Test func atNoticeNoInfoOrDebugLineIsWritten() throws {
        let server = try ServerProcess(environment: ["ATTRIBUTIOND_ADMIN_KEY": Self.key, "ATTRIBUTIOND_LOG_LEVEL": "notice"])
        let client = try RawClient(port: server.port)
        client.send("GET /admin/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(Self.key)\r\nConnection: close\r\n\r\n")
        #expect(client.readResponse()?.status == 200)
        #expect(server.terminateAndWait() == 0)
        let all = Self.lines(server.outputBeforeListening + server.outputAfterListening + server.remainingOutput)
        #expect(all.contains { $0["msg"] == "draining" } && all.contains { $0["msg"] == "stopped" })
        let levels = Set(all.compactMap { $0["level"] })
        #expect(levels.isDisjoint(with: ["trace", "debug", "info"]), "\(all)")
        #expect(!all.contains { $0["path"] != nil || $0["route"] != nil }, "no request line")
    }
}
