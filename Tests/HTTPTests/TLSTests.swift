import Foundation
import TestSupport
import Testing

@testable import HTTP

private let tools = ["/usr/bin/openssl", "/usr/bin/curl"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

private func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let result = try ChildProcess.run(path, arguments)
    let data = result.stdout
    return (result.status, String(decoding: data, as: UTF8.self))
}

@Suite(.enabled(if: tools, "needs the openssl and curl commands"))
struct TLSTests {
    /// A throwaway self-signed certificate for 127.0.0.1.
    private func certificate() throws -> (folder: URL, cert: String, key: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attributiond-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let cert = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        let made = try run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        #expect(made.status == 0)
        return (folder, cert, key)
    }

    @Test func httpsRequestsAreServedThroughTheSameServer() throws {
        let (folder, cert, key) = try certificate()
        defer { try? FileManager.default.removeItem(at: folder) }
        var router = RouterBuilder()
        router.get("/health") { _ in .json(bytes: Array(#"{"status":"ok"}"#.utf8)) }
        router.post("/echo") { request in HTTPResponse(status: .ok, body: request.body) }
        let server = HTTPServer(
            host: "127.0.0.1", port: 0, tls: try TLSContext(certificatePath: cert, privateKeyPath: key),
            responder: router.build())
        try server.start()
        defer { server.shutdownAndWait() }
        let base = "https://127.0.0.1:\(server.port)"
        // Two requests on one connection (curl reuses it), verified against our certificate.
        let two = try run("/usr/bin/curl", ["-s", "--http1.1", "--cacert", cert, "\(base)/health", "\(base)/health"])
        #expect(two.status == 0)
        #expect(two.output == #"{"status":"ok"}{"status":"ok"}"#)
        let body = String(repeating: "x", count: 50_000)  // several TLS records
        let echo = try run("/usr/bin/curl", ["-s", "--http1.1", "--cacert", cert, "-X", "POST", "--data-binary", body, "\(base)/echo"])
        #expect(echo.output == body)
        // Plain HTTP to the TLS port is refused, not answered in clear.
        #expect(try run("/usr/bin/curl", ["-s", "--max-time", "3", "http://127.0.0.1:\(server.port)/health"]).output.isEmpty)
    }

    @Test func aHandshakeThatStallsIsCutAfterItsTimeout() throws {
        let (folder, cert, key) = try certificate()
        defer { try? FileManager.default.removeItem(at: folder) }
        var router = RouterBuilder()
        router.get("/health") { _ in .json(bytes: Array(#"{"status":"ok"}"#.utf8)) }
        var limits = HTTPServerLimits()
        limits.tlsHandshakeTimeout = .milliseconds(400)
        let server = HTTPServer(
            host: "127.0.0.1", port: 0, limits: limits, tls: try TLSContext(certificatePath: cert, privateKeyPath: key),
            responder: router.build())
        try server.start()
        defer { server.shutdownAndWait() }

        // The start of a ClientHello, and then nothing: the connection is closed once the handshake
        // deadline passes, long before the 60 s idle timeout.
        let stalled = try RawClient(port: server.port, receiveTimeout: 5)
        let started = Date()
        stalled.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])
        #expect(stalled.readUntilClosed())
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.3 && waited < 3, "closed after \(waited) s")

        // A handshake that completes is not cut: two requests on one connection, 0.6 s apart.
        let kept = try run(
            "/bin/sh",
            [
                "-c",
                "(printf 'GET /health HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n'; sleep 0.6; "
                    + "printf 'GET /health HTTP/1.1\\r\\nHost: a\\r\\nConnection: close\\r\\n\\r\\n'; sleep 1) | "
                    + "/usr/bin/openssl s_client -quiet -connect 127.0.0.1:\(server.port) 2>/dev/null",
            ])
        #expect(kept.output.components(separatedBy: #"{"status":"ok"}"#).count == 3, "\(kept.output)")
    }

    @Test func aKeyThatDoesNotMatchIsRefusedNamingTheSetting() throws {
        let first = try certificate()
        let second = try certificate()
        defer {
            try? FileManager.default.removeItem(at: first.folder)
            try? FileManager.default.removeItem(at: second.folder)
        }
        #expect { try TLSContext(certificatePath: first.cert, privateKeyPath: second.key) } throws: {
            ($0 as? TLSContext.Failure)?.description.contains("tls.key") == true
        }
        #expect(throws: TLSContext.Failure.self) { try TLSContext(certificatePath: "/nonexistent.pem", privateKeyPath: first.key) }
    }
}
