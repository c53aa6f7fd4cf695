import Attribution
import Cryptography
import Foundation
import HTTP
import StoreContracts

/// Linkrunner's optional request signing (newer iOS SDK): `Authorization: HMAC`, `x-Key-Id`,
/// `x-Timestamp` (epoch ms) and `x-Signature` = base64(HMAC-SHA256(secret, "<ts>\n" +
/// base64(SHA-256(raw body)))), the content hash empty for an empty body.
enum RequestSignature {
    static let maximumSkewMilliseconds: Int64 = 5 * 60 * 1000

    /// Throws 401 unless the request is acceptable under the project's `signing` mode.
    /// - Parameter secret: the secret of a key id of the project (cached with the projects), nil
    ///   when the project has no such active key.
    static func check(_ request: HTTPRequest, project: Project, secret: (String) throws -> String?, now: Timestamp) throws {
        let mode = project.settings.signing
        guard mode != .off else { return }
        let signature = request.headers["x-Signature"]
        let isSigned = signature != nil || request.headers["Authorization"].map { $0.equalsIgnoringASCIICase("HMAC") } == true
        guard isSigned else {
            if mode == .required { throw unauthorized("this project requires signed requests (Authorization: HMAC)") }
            return
        }
        guard let signature, let keyID = request.headers["x-Key-Id"], let timestampText = request.headers["x-Timestamp"] else {
            throw unauthorized("a signed request needs x-Key-Id, x-Timestamp and x-Signature")
        }
        // Subtracting a timestamp near Int64.min would overflow, and overflow traps.
        guard let timestamp = Int64(timestampText), case let (skew, false) = now.milliseconds.subtractingReportingOverflow(timestamp),
            skew.magnitude <= UInt64(maximumSkewMilliseconds)
        else {
            throw unauthorized("x-Timestamp is missing or more than 5 minutes from the server's time")
        }
        guard let secret = try secret(keyID) else { throw unauthorized("unknown signing key") }
        let expected = sign(body: request.body, timestamp: timestampText, secret: secret)
        guard Secrets.constantTimeEquals(Array(expected.utf8), Array(signature.utf8)) else { throw unauthorized("bad request signature") }
    }

    static func sign(body: [UInt8], timestamp: String, secret: String) -> String {
        let contentHash = body.isEmpty ? "" : Data(Secrets.sha256(body)).base64EncodedString()
        return Data(Secrets.hmacSHA256(key: secret, message: Array("\(timestamp)\n\(contentHash)".utf8))).base64EncodedString()
    }

    private static func unauthorized(_ message: String) -> HTTPError { HTTPError(.unauthorized, code: "unauthorized", message: message) }
}
