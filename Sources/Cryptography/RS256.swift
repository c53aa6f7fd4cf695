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
