import Foundation
import TestSupport

/// A browser's part in dashboard tests: one session cookie, forms posted with the CSRF token of
/// the page they came from.
final class DashboardClient {
    let app: TestApp
    var cookie: String?
    let prefix: String

    init(_ app: TestApp, prefix: String = "/dashboard") {
        self.app = app
        self.prefix = prefix
    }

    /// - Parameter otherCookies: sent after the session's, as `name=value; …`.
    func get(_ path: String, otherCookies: String? = nil) throws -> TestResponse {
        let cookies = [cookie.map { "attributiond_session=\($0)" }, otherCookies].compactMap { $0 }.joined(separator: "; ")
        return try app.request("GET", prefix + path, adminKey: nil, headers: cookies.isEmpty ? [:] : ["Cookie": cookies])
    }

    /// Posts `fields` form-encoded (no CSRF token unless given among them).
    func post(_ path: String, _ fields: [(String, String)], headers extra: [String: String] = [:]) throws -> TestResponse {
        let body = fields.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
        let client = try RawClient(port: app.port)
        var head = "POST \(prefix)\(path) HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        head += "Content-Length: \(body.utf8.count)\r\n"
        if let cookie { head += "Cookie: attributiond_session=\(cookie)\r\n" }
        for (name, value) in extra { head += "\(name): \(value)\r\n" }
        client.send(head + "\r\n" + body)
        guard let response = client.readResponse() else { throw ConnectError(code: 0) }
        return response
    }

    /// Posts `fields` and `file` as `multipart/form-data`, as a browser sends a form with a file,
    /// with the CSRF token of the page at `page`.
    func submitMultipart(from page: String, to path: String, _ fields: [(String, String)], file: (name: String, bytes: [UInt8])) throws
        -> TestResponse
    {
        let html = try get(page).bodyText
        guard let token = Self.csrfToken(in: html) else { throw ConnectError(code: 0) }
        let boundary = "----attributiond\(UUID().uuidString)"
        var body: [UInt8] = []
        for (name, value) in [("csrf", token)] + fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"export.csv\"\r\nContent-Type: text/csv\r\n\r\n".utf8)
        body += file.bytes + Array("\r\n--\(boundary)--\r\n".utf8)
        let client = try RawClient(port: app.port)
        var head = "POST \(prefix)\(path) HTTP/1.1\r\nHost: test\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\n"
        head += "Content-Length: \(body.count)\r\n"
        if let cookie { head += "Cookie: attributiond_session=\(cookie)\r\n" }
        client.send(Array((head + "\r\n").utf8) + body)
        guard let response = client.readResponse() else { throw ConnectError(code: 0) }
        return response
    }

    /// Posts a form the way the page at `page` would: with that page's CSRF token.
    func submit(from page: String, to path: String, _ fields: [(String, String)]) throws -> TestResponse {
        let html = try get(page).bodyText
        guard let token = Self.csrfToken(in: html) else { throw ConnectError(code: 0) }
        return try post(path, [("csrf", token)] + fields)
    }

    @discardableResult
    func signInWithAdminKey(_ key: String = TestApp.adminKey) throws -> TestResponse {
        let response = try post("/sign-in", [("admin_key", key)])
        cookie = Self.sessionToken(response) ?? cookie
        return response
    }

    @discardableResult
    func signIn(email: String, password: String) throws -> TestResponse {
        let response = try post("/sign-in", [("email", email), ("password", password)])
        cookie = Self.sessionToken(response) ?? cookie
        return response
    }

    static func sessionToken(_ response: TestResponse) -> String? {
        guard let header = response.header("Set-Cookie"), header.hasPrefix("attributiond_session=") else { return nil }
        let value = header.dropFirst("attributiond_session=".count).prefix { $0 != ";" }
        return value.isEmpty ? nil : String(value)
    }

    static func csrfToken(in html: String) -> String? {
        guard let range = html.range(of: #"name="csrf" value=""#) else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
