internal import COpenSSL

/// Facts about the linked OpenSSL library (reported by `attributiond version`).
public enum OpenSSLLibrary {
    public static var version: String { String(cString: OpenSSL_version(Int32(OPENSSL_VERSION))) }
}
