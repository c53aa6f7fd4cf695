internal import COpenSSL
import Synchronization

/// Certificates by server name (SNI), changed while the server runs: a certificate obtained or
/// renewed is served from the next handshake on, with no restart.
public final class ServerCertificates: Sendable {
    private let byName = Mutex<[String: TLSContext]>([:])

    public init() {}

    /// Serves `context` for `name` (lower case), or stops serving one for it (nil).
    public func set(_ context: TLSContext?, for name: String) {
        byName.withLock { $0[name.lowercased()] = context }
    }

    func context(for name: String) -> TLSContext? { byName.withLock { $0[name.lowercased()] } }

    /// Asks this object, during each handshake of `context`, for the client's server name.
    func install(on context: OpaquePointer) {
        attributiond_set_server_name_callback(context, serverNameCallback, Unmanaged.passUnretained(self).toOpaque())
    }
}

/// Switches a handshake to the certificate of the name it asks for, when there is one; without
/// one the listener's own certificate (if any) answers.
private let serverNameCallback: @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutableRawPointer?) -> Int32 = {
    ssl, _, argument in
    guard let ssl, let argument, let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else { return SSL_TLSEXT_ERR_NOACK }
    let certificates = Unmanaged<ServerCertificates>.fromOpaque(argument).takeUnretainedValue()
    if let chosen = certificates.context(for: String(cString: name)) { _ = SSL_set_SSL_CTX(ssl, chosen.context) }
    return SSL_TLSEXT_ERR_OK
}
