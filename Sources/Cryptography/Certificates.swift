internal import COpenSSL

/// Keys, certificate requests and certificate dates for certificates the server gets itself
/// (ACME, RFC 8555), through OpenSSL.
public enum Certificates {
    /// A new P-256 private key, PKCS#8 PEM.
    public static func newP256KeyPEM() -> String? {
        var length = 0
        guard let buffer = attributiond_p256_key_pem(&length) else { return nil }
        defer { free(buffer) }
        return String(decoding: UnsafeRawBufferPointer(start: buffer, count: length), as: UTF8.self)
    }

    /// The public point of a P-256 private key: its x and y, 32 bytes each (a JWK's `x`, `y`).
    public static func publicPoint(ofP256KeyPEM pem: String) -> (x: [UInt8], y: [UInt8])? {
        guard let key = privateKey(pem) else { return nil }
        defer { EVP_PKEY_free(key) }
        var point = [UInt8](repeating: 0, count: 65)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, "encoded-pub-key", &point, point.count, &length) == 1, length == 65, point[0] == 4
        else { return nil }
        return (Array(point[1...32]), Array(point[33...64]))
    }

    /// A certificate signing request for `names` (the first is the subject), DER.
    public static func signingRequest(names: [String], keyPEM: String) -> [UInt8]? {
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty && !$0.utf8.contains(0) }), let key = privateKey(keyPEM) else { return nil }
        defer { EVP_PKEY_free(key) }
        let joined = names.joined(separator: "\0") + "\0"
        var output: UnsafeMutablePointer<UInt8>?
        let length = attributiond_csr_der(key, joined, Int32(names.count), &output)
        guard length > 0, let output else { return nil }
        defer { CRYPTO_free(output, #file, #line) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// When the first certificate of a PEM chain starts and stops being valid (seconds since 1970).
    public static func validity(ofPEM pem: String) -> (notBefore: Int64, notAfter: Int64)? {
        var notBefore: Int64 = 0
        var notAfter: Int64 = 0
        let bytes = Array(pem.utf8)
        let ok = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { attributiond_certificate_validity($0.baseAddress, Int32($0.count), &notBefore, &notAfter) }
        }
        return ok == 1 ? (notBefore, notAfter) : nil
    }

    /// The signature of SHA-256 of `message` with `pem`'s private key, as OpenSSL writes it (DER
    /// for ECDSA, the raw block for RSA), when `accepts` the key; nil otherwise.
    static func sha256Signature(_ message: [UInt8], privateKeyPEM pem: String, accepts: (OpaquePointer) -> Bool) -> [UInt8]? {
        guard let key = privateKey(pem) else { return nil }
        defer { EVP_PKEY_free(key) }
        guard accepts(key), let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { return nil }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { return nil }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { return nil }
        return Array(signature.prefix(length))
    }

    /// The private key of a PEM text (the caller frees it), or nil.
    static func privateKey(_ pem: String) -> OpaquePointer? {
        let bytes = Array(pem.utf8)
        guard !bytes.isEmpty, bytes.count < 16_384 else { return nil }
        return bytes.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
    }
}
