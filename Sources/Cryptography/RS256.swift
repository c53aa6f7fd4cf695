import COpenSSL

/// RSASSA-PKCS1-v1_5 with SHA-256 (JWS `RS256`): what a Google service account signs its token
/// requests with.
public enum RS256 {
    /// The signature of `message` with `pem`'s RSA private key (PKCS#8 or PKCS#1 PEM); nil when
    /// the key is not an RSA key.
    public static func sign(_ message: [UInt8], privateKeyPEM pem: String) -> [UInt8]? {
        Certificates.sha256Signature(message, privateKeyPEM: pem) { EVP_PKEY_get_base_id($0) == EVP_PKEY_RSA && EVP_PKEY_get_bits($0) >= 2048 }
    }

    /// Checks `signature` with the public half of `pem`'s key (tests: a fake Google checks what
    /// it is sent).
    public static func verify(_ signature: [UInt8], message: [UInt8], privateKeyPEM pem: String) -> Bool {
        guard let key = Certificates.privateKey(pem), let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_PKEY_free(key)
            EVP_MD_CTX_free(context)
        }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}

extension RS256 {
    /// Checks `signature` with the RSA public key of modulus `n` and exponent `e` (big-endian
    /// bytes, as a JWK's `n` and `e` hold them): how Google's published keys are given.
    public static func verify(_ signature: [UInt8], message: [UInt8], modulus n: [UInt8], exponent e: [UInt8]) -> Bool {
        let spki = DER.sequence(
            [0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00]
                + DER.bitString(DER.sequence(DER.unsignedInteger(n) + DER.unsignedInteger(e))))
        let key = spki.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &pointer, buffer.count)
        }
        guard let key else { return false }
        defer { EVP_PKEY_free(key) }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA, EVP_PKEY_get_bits(key) >= 2048, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}

/// The few DER encodings a SubjectPublicKeyInfo of an RSA key needs (X.690).
private enum DER {
    static func sequence(_ content: [UInt8]) -> [UInt8] { [0x30] + length(content.count) + content }

    static func bitString(_ content: [UInt8]) -> [UInt8] { [0x03] + length(content.count + 1) + [0x00] + content }

    /// A non-negative INTEGER: leading zeros dropped, one added where the top bit would read as a sign.
    static func unsignedInteger(_ bytes: [UInt8]) -> [UInt8] {
        var magnitude = Array(bytes.drop { $0 == 0 })
        if magnitude.isEmpty || magnitude[0] & 0x80 != 0 { magnitude.insert(0, at: 0) }
        return [0x02] + length(magnitude.count) + magnitude
    }

    static func length(_ count: Int) -> [UInt8] {
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
