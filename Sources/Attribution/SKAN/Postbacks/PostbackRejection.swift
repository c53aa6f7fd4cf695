/// Why a postback copy was refused: `code` is the metric's `result` label and the error code of
/// the 4xx answer, `message` names the field or the reason.
public struct PostbackRejection: Error, Sendable, Equatable {
    /// Not one of the two shapes, or a field of the wrong type or range.
    public static func malformed(_ message: String) -> PostbackRejection { PostbackRejection(code: "malformed", message: message) }
    /// A SKAdNetwork version whose signatures this server does not check (1.0, 2.0: P-192).
    public static func unsupportedVersion(_ message: String) -> PostbackRejection {
        PostbackRejection(code: "unsupported_version", message: message)
    }
    public static let badSignature = PostbackRejection(code: "bad_signature", message: "the signature does not verify with Apple's key")

    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }
}

/// What must verify before a postback is believed: `signature` over `message` with the key named
/// `keyID`. SKAdNetwork signs a DER ECDSA signature; a JWS carries the raw `r ‖ s` (RFC 7518 §3.4).
public struct PostbackSignature: Sendable, Equatable {
    public enum Encoding: Sendable, Equatable { case der, raw }

    public var keyID: String
    public var message: [UInt8]
    public var signature: [UInt8]
    public var encoding: Encoding

    public init(keyID: String, message: [UInt8], signature: [UInt8], encoding: Encoding) {
        self.keyID = keyID
        self.message = message
        self.signature = signature
        self.encoding = encoding
    }
}
