public import Attribution
import Cryptography

/// AWS Signature Version 4 for S3 requests (header authorisation, the payload's SHA-256 signed):
/// written by hand against the published examples (`S3SignatureTests`) because no maintained
/// Swift package for it is in this build's reach, and the rules are short.
public struct S3Signature: Sendable {
    public let accessKeyID: String
    public let secretAccessKey: String
    public let region: String

    public init(accessKeyID: String, secretAccessKey: String, region: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
    }

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256` and `authorization`.
    /// `path` is the request's path as sent (already URI-encoded); `headers` are the other
    /// headers to sign, `host` among them.
    public func sign(
        method: String, path: String, query: [(String, String)], headers: [(String, String)], payloadSHA256: String, at time: Timestamp
    ) -> [(String, String)] {
        let stamp = Self.amzDate(time)
        let day = String(stamp.prefix(8))
        var signed = headers.map { ($0.0.lowercased(), Self.trimmed($0.1)) }
        signed.append(("x-amz-content-sha256", payloadSHA256))
        signed.append(("x-amz-date", stamp))
        signed.sort { $0.0 < $1.0 }
        let signedNames = signed.map(\.0).joined(separator: ";")
        let encodedQuery: [(name: String, value: String)] = query.map { pair in
            (Self.encode(pair.0, encodingSlash: true), Self.encode(pair.1, encodingSlash: true))
        }
        let sortedQuery = encodedQuery.sorted { lhs, rhs in lhs.name == rhs.name ? lhs.value < rhs.value : lhs.name < rhs.name }
        let canonicalQuery = sortedQuery.map { pair in pair.name + "=" + pair.value }.joined(separator: "&")
        let canonicalHeaders: String = signed.map { (name: String, value: String) -> String in name + ":" + value + "\n" }.joined()
        let canonical: String = [method, path, canonicalQuery, canonicalHeaders, signedNames, payloadSHA256].joined(separator: "\n")
        let scope = "\(day)/\(region)/s3/aws4_request"
        let toSign = "AWS4-HMAC-SHA256\n\(stamp)\n\(scope)\n\(Secrets.sha256Hex(canonical))"
        var key = Secrets.hmacSHA256(key: "AWS4" + secretAccessKey, message: Array(day.utf8))
        for part in [region, "s3", "aws4_request"] { key = Secrets.hmacSHA256(keyBytes: key, message: Array(part.utf8)) }
        let signature = AESGCM.hex(Secrets.hmacSHA256(keyBytes: key, message: Array(toSign.utf8)))
        return [
            ("x-amz-date", stamp), ("x-amz-content-sha256", payloadSHA256),
            ("authorization", "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(signedNames), Signature=\(signature)"),
        ]
    }

    /// An object key as a request path (`encodingSlash` false: `/` and `=` kept), or a query's
    /// name or value (`encodingSlash` true): each byte but the unreserved ones percent-encoded.
    public static func encode(_ text: String, encodingSlash: Bool) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            // A path keeps `/`, and `=` (the partitions' `table=…`) as AWS's SDKs send it: S3 signs
            // the path as sent, and S3-compatible servers that sign the decoded path (moto) agree.
            case UInt8(ascii: "/") where !encodingSlash, UInt8(ascii: "=") where !encodingSlash:
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF")
                result.append("%")
                result.append(digits[Int(byte >> 4)])
                result.append(digits[Int(byte & 0x0F)])
            }
        }
        return result
    }

    public static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// `20130524T000000Z`.
    static func amzDate(_ time: Timestamp) -> String {
        let iso = time.iso8601  // 2013-05-24T00:00:00Z
        return iso.filter { $0 != "-" && $0 != ":" }
    }

    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}
