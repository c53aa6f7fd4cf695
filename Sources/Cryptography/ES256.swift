internal import COpenSSL

/// ECDSA P-256 with SHA-256 (JWS `ES256`, RFC 7518 §3.4) through OpenSSL: Apple's Search Ads API
/// takes a client secret signed this way. Signatures are the raw 64 bytes `r ‖ s` JWS wants, not
/// the DER OpenSSL makes.
public enum ES256 {
    /// Whether `pem` is a P-256 private key OpenSSL can sign with.
    public static func isPrivateKey(_ pem: String) -> Bool {
        guard let key = privateKey(pem) else { return false }
        defer { EVP_PKEY_free(key) }
        return EVP_PKEY_get_base_id(key) == EVP_PKEY_EC && EVP_PKEY_get_bits(key) == 256
    }

    /// `r ‖ s` over SHA-256 of `message`, or nil when the key is not a P-256 private key.
    public static func sign(_ message: [UInt8], privateKeyPEM pem: String) -> [UInt8]? {
        Certificates.sha256Signature(message, privateKeyPEM: pem) { EVP_PKEY_get_base_id($0) == EVP_PKEY_EC && EVP_PKEY_get_bits($0) == 256 }
            .flatMap(raw(fromDER:))
    }

    /// Checks an `r ‖ s` signature with the public half of `pem`'s key (tests, and a key's own check).
    public static func verify(_ signature: [UInt8], message: [UInt8], privateKeyPEM pem: String) -> Bool {
        guard signature.count == 64, let key = privateKey(pem), let der = der(fromRaw: signature) else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }

    /// Checks a signature made by the holder of a public key given as DER SubjectPublicKeyInfo
    /// (Apple publishes its postback keys so): `signature` DER-encoded when `isDER`, else `r ‖ s`.
    public static func verify(_ signature: [UInt8], isDER: Bool, message: [UInt8], publicKeyDER: [UInt8]) -> Bool {
        guard let der = isDER ? signature : (signature.count == 64 ? der(fromRaw: signature) : nil) else { return false }
        let key = publicKeyDER.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &pointer, buffer.count)
        }
        guard let key else { return false }
        defer { EVP_PKEY_free(key) }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, der, der.count, message, message.count) == 1
    }

    /// The DER SubjectPublicKeyInfo of `pem`'s private key (tests sign postbacks with keys they make).
    public static func publicKeyDER(privateKeyPEM pem: String) -> [UInt8]? {
        guard let key = privateKey(pem) else { return nil }
        defer { EVP_PKEY_free(key) }
        let length = i2d_PUBKEY(key, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var pointer = buffer.baseAddress
            return i2d_PUBKEY(key, &pointer)
        }
        return written == length ? der : nil
    }

    private static func privateKey(_ pem: String) -> OpaquePointer? { Certificates.privateKey(pem) }

    private static func raw(fromDER der: [UInt8]) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var pointer: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &pointer, buffer.count) else { return nil }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var out = [UInt8](repeating: 0, count: 64)
            let written = out.withUnsafeMutableBufferPointer { output -> Bool in
                BN_bn2binpad(r, output.baseAddress, 32) == 32 && BN_bn2binpad(s, output.baseAddress! + 32, 32) == 32
            }
            return written ? out : nil
        }
    }

    private static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)  // set0 takes them only when it succeeds
            BN_free(s)
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var pointer = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &pointer)
        }
        return written == length ? der : nil
    }
}
