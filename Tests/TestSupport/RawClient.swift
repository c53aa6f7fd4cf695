import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A blocking TCP client for tests: sends exact bytes, reads exact responses. Every read has a
/// timeout so a broken server fails the test instead of hanging it.
public final class RawClient {
    public let fd: Int32
    private var buffer: [UInt8] = []

    /// - Parameter source: an IPv4 address of this machine to connect from (any of 127.0.0.0/8
    ///   works on loopback), so one test can act as several clients.
    public init(port: UInt16, host: String = "127.0.0.1", source: String? = nil, receiveTimeout: Double = 5) throws {
        let result: Int32
        if host.contains(":") {
            fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                inet_pton(AF_INET, source, &local.sin_addr)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                // Not closed here: a class whose initializer throws once every property is set
                // still runs its deinit, which closes the socket. Closing it twice closed whatever
                // descriptor another thread had been given the number since (a server's stderr pipe).
                if bound != 0 { throw ConnectError(code: errno) }
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard result == 0 else { throw ConnectError(code: errno) }  // deinit closes the socket, as above
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        setReceiveTimeout(receiveTimeout)
    }

    deinit { close(fd) }

    public func setReceiveTimeout(_ seconds: Double) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    public func send(_ text: String) { send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    public func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// Reads more bytes; false on EOF, error or timeout.
    @discardableResult
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    /// Reads one response (status line, headers, Content-Length body). HEAD responses have no body:
    /// pass `bodyless: true`. Nil when the connection ended first.
    public func readResponse(bodyless: Bool = false) -> TestResponse? {
        while true {
            if let response = TestResponse.parse(&buffer, bodyless: bodyless) { return response }
            guard fill() else { return nil }
        }
    }

    /// Reads until the server closes; true if it closed (EOF) within the timeout.
    /// Whether the server closes the connection within `timeout` seconds.
    public func readUntilClosed(timeout: Double) -> Bool {
        setReceiveTimeout(timeout)
        return readUntilClosed()
    }

    public func readUntilClosed() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count == 0 { return true }
            if count < 0 { return errno == ECONNRESET }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Bytes received and not yet consumed by `readResponse`.
    public var unread: String { String(decoding: buffer, as: UTF8.self) }
}

public struct TestResponse {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public var closes: Bool { header("Connection")?.lowercased() == "close" }

    public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    public var jsonArray: [[String: Any]]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [[String: Any]] }

    static func parse(_ buffer: inout [UInt8], bodyless: Bool) -> TestResponse? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = buffer.indices.first(where: { buffer[$0...].starts(with: separator) }) else { return nil }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (String(parts[0]), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        let length = bodyless ? 0 : Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
        let bodyStart = end + 4
        guard buffer.count >= bodyStart + length else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeSubrange(0..<(bodyStart + length))
        return TestResponse(status: status, headers: headers, body: body)
    }
}

public struct ConnectError: Error, CustomStringConvertible {
    public let code: Int32
    public init(code: Int32) { self.code = code }
    public var description: String { "connect: \(String(cString: strerror(code)))" }
}

/// `GET path HTTP/1.1` with a Host header and any extra lines.
public func get(_ path: String, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}
