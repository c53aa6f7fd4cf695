internal import COpenSSL

/// A server TLS configuration (OpenSSL `SSL_CTX`): certificate chain and private key from PEM
/// files, TLS 1.2 or newer. Shared by every connection of an HTTPS listener.
public final class TLSContext: @unchecked Sendable {
    // Immutable after init; OpenSSL allows one SSL_CTX to serve many SSL objects across threads.
    let context: OpaquePointer

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Certificates chosen by the name a client asks for (SNI); held while the context lives.
    private let serverNames: ServerCertificates?

    public init(certificatePath: String, privateKeyPath: String, serverNames: ServerCertificates? = nil) throws {
        context = try Self.newContext()
        self.serverNames = serverNames
        guard SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1 else {
            throw Failure(description: "tls.cert: cannot read a PEM certificate chain from \(certificatePath) (\(Self.lastError()))")
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw Failure(description: "tls.key: cannot read a PEM private key from \(privateKeyPath) (\(Self.lastError()))")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw Failure(description: "tls.key does not match tls.cert")
        }
        if let serverNames { serverNames.install(on: context) }
    }

    /// A listener's context with no certificate of its own: each handshake takes the one
    /// `serverNames` has for the name the client asks for, and fails without one.
    public init(serverNames: ServerCertificates) throws {
        context = try Self.newContext()
        self.serverNames = serverNames
        serverNames.install(on: context)
    }

    /// One name's certificate, from PEM text (a chain, leaf first, and its key).
    public init(chainPEM: String, keyPEM: String) throws {
        context = try Self.newContext()
        serverNames = nil
        let chain = Array(chainPEM.utf8).map { CChar(bitPattern: $0) }
        let key = Array(keyPEM.utf8).map { CChar(bitPattern: $0) }
        guard attributiond_use_pem(context, chain, Int32(chain.count), key, Int32(key.count)) == 1 else {
            throw Failure(description: "the certificate chain or its key cannot be used (\(Self.lastError()))")
        }
    }

    private static func newContext() throws -> OpaquePointer {
        guard let context = SSL_CTX_new(TLS_server_method()) else { throw Failure(description: "cannot create a TLS context") }
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        // Partial writes and a write buffer that may move between retries: our output buffer does both.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        return context
    }

    deinit { SSL_CTX_free(context) }

    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no detail" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// One connection's TLS session over a non-blocking socket. Used only from its connection's event loop.
final class TLSSession {
    private let ssl: OpaquePointer
    private(set) var handshakeDone = false
    /// The handshake is waiting for the socket to become writable (its send buffer was full).
    private(set) var handshakeWantsWrite = false

    init?(context: TLSContext, fd: Int32) {
        guard let ssl = SSL_new(context.context) else { return nil }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        SSL_set_accept_state(ssl)
    }

    deinit { SSL_free(ssl) }

    /// Bytes OpenSSL has decrypted but not handed out yet.
    var pending: Int { Int(SSL_pending(ssl)) }

    func receive(into buffer: UnsafeMutableRawBufferPointer) -> Socket.IOResult {
        if !handshakeDone, let result = handshake() { return result }
        let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if count > 0 { return .bytes(Int(count)) }
        return outcome(of: count)
    }

    func send(_ buffer: UnsafeRawBufferPointer) -> Socket.IOResult {
        if !handshakeDone, let result = handshake() { return result }
        guard buffer.count > 0 else { return .bytes(0) }
        let count = SSL_write(ssl, buffer.baseAddress, Int32(min(buffer.count, Int(Int32.max))))
        if count > 0 { return .bytes(Int(count)) }
        return outcome(of: count)
    }

    func shutdown() { _ = SSL_shutdown(ssl) }

    /// nil once the handshake is complete; otherwise what the caller should do now.
    private func handshake() -> Socket.IOResult? {
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeDone = true
            handshakeWantsWrite = false
            return nil
        }
        handshakeWantsWrite = SSL_get_error(ssl, result) == SSL_ERROR_WANT_WRITE
        return outcome(of: result)
    }

    private func outcome(of result: Int32) -> Socket.IOResult {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wouldBlock
        case SSL_ERROR_ZERO_RETURN: return .endOfFile
        default:
            ERR_clear_error()
            return .failed(-1)
        }
    }
}
