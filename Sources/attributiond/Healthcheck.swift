import ArgumentParser
import Foundation
import HTTP

#if canImport(Glibc)
    import Glibc
#endif

/// For container health checks (slim images have no curl): exit 0 when `/health/ready` answers 200.
struct Healthcheck: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Exit 0 when the server's /health/ready answers 200, 1 otherwise.")

    @Option(help: "The server's base URL (http only). Default: http://127.0.0.1:$ATTRIBUTIOND_PORT (8080).")
    var url = "http://127.0.0.1:\(ProcessInfo.processInfo.environment["ATTRIBUTIOND_PORT"].flatMap { UInt16($0) } ?? 8080)"

    @Option(help: "Seconds to wait for an answer.")
    var timeout: Double = 3

    func validate() throws {
        guard Self.hostAndPort(url) != nil else { throw ValidationError("--url must be http://HOST[:PORT]") }
        guard timeout > 0, timeout <= 60 else { throw ValidationError("--timeout must be between 0 and 60 seconds") }
    }

    func run() throws {
        let (host, port) = Self.hostAndPort(url)!
        guard let status = Self.status(host: host, port: port, path: "/health/ready", timeout: timeout) else {
            FileHandleOutput.standardError("healthcheck: no answer from \(url)")
            throw ExitCode.failure
        }
        guard status == 200 else {
            FileHandleOutput.standardError("healthcheck: /health/ready answered \(status)")
            throw ExitCode.failure
        }
    }

    static func hostAndPort(_ url: String) -> (String, UInt16)? {
        guard url.hasPrefix("http://") else { return nil }
        let authority = url.dropFirst(7).prefix { $0 != "/" }
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let host = String(authority[authority.index(after: authority.startIndex)..<close])
            let rest = authority[authority.index(after: close)...]
            return (host, rest.hasPrefix(":") ? UInt16(rest.dropFirst()) ?? 0 : 80)
        }
        let parts = authority.split(separator: ":")
        guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return nil }
        guard let port = parts.count == 2 ? UInt16(parts[1]) : 80 else { return nil }
        return (String(host), port)
    }

    /// The status code of `GET path`, over a plain blocking socket with a timeout.
    static func status(host: String, port: UInt16, path: String, timeout: Double) -> Int? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else { return nil }
        defer { freeaddrinfo(result) }
        let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var limit = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count >= 12 else { return nil }
        // "HTTP/1.1 200 …"
        return Int(String(decoding: buffer[9..<12], as: UTF8.self))
    }
}
