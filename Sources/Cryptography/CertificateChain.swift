import COpenSSL

/// An X.509 chain checked up to trusted roots (App Store Server Notifications' `x5c`): every
/// signature, validity period and CA constraint by OpenSSL, and the marker extensions a store puts
/// on its signing certificates, so that a certificate Apple issued to any developer does not pass.
public enum CertificateChain {
    public enum Refusal: Error, Sendable, Equatable {
        /// A certificate that is not DER, or no root in the roots given.
        case unreadable
        /// OpenSSL's verification error (`X509_V_ERR_…`) and its text.
        case untrusted(code: Int32, reason: String)
        /// The chain holds, but the leaf or the intermediate lacks the store's marker extension.
        case notTheStoresCertificate
    }

    /// The leaf's public key (DER SubjectPublicKeyInfo) when `certificates` (DER, leaf first)
    /// chains up to one of `rootsPEM` at `time` (seconds since 1970).
    public static func verifiedLeafKey(
        _ certificates: [[UInt8]], rootsPEM: String, at time: Int64, leafOID: String? = nil, intermediateOID: String? = nil
    ) -> Result<[UInt8], Refusal> {
        guard !certificates.isEmpty, certificates.count <= 5 else { return .failure(.unreadable) }
        let copies = certificates.map { certificate -> UnsafeMutablePointer<UInt8> in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, certificate.count))
            copy.initialize(from: certificate, count: certificate.count)
            return copy
        }
        defer { for copy in copies { copy.deallocate() } }
        let pointers: [UnsafePointer<UInt8>?] = copies.map { UnsafePointer($0) }
        let lengths = certificates.map { Int32($0.count) }
        var key: UnsafeMutablePointer<UInt8>?
        var reason: Int32 = 0
        let roots = Array(rootsPEM.utf8)
        let length = pointers.withUnsafeBufferPointer { pointerBuffer in
            lengths.withUnsafeBufferPointer { lengthBuffer in
                roots.withUnsafeBufferPointer { rootBuffer in
                    rootBuffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: roots.count) { rootText in
                        attributiond_verify_chain(
                            pointerBuffer.baseAddress, lengthBuffer.baseAddress, Int32(certificates.count), rootText, Int32(roots.count), time,
                            leafOID, intermediateOID, &key, &reason)
                    }
                }
            }
        }
        guard length > 0, let key else {
            if reason == -2 { return .failure(.notTheStoresCertificate) }
            if reason > 0 { return .failure(.untrusted(code: reason, reason: String(cString: X509_verify_cert_error_string(Int(reason))))) }
            return .failure(.unreadable)
        }
        defer { CRYPTO_free(key, #file, #line) }
        return .success(Array(UnsafeBufferPointer(start: key, count: Int(length))))
    }
}
