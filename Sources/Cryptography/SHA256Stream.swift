internal import COpenSSL

/// SHA-256 of bytes that arrive in pieces (an export file as it is compressed), through
/// OpenSSL's digest interface.
public final class SHA256Stream {
    private let context: OpaquePointer

    public init() {
        context = EVP_MD_CTX_new()
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
    }

    /// The digest as lowercase hex; the stream starts over.
    public func finishHex() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        return AESGCM.hex(digest)
    }
}
