public import App
import CCurl
import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Outbound HTTP through libcurl (the system's, with its certificate store and OpenSSL): one
/// multi handle driven by one thread, connections kept alive across requests, transfers in
/// parallel. Connect 5 s, whole request `totalTimeout`; no redirects (one could lead past the
/// address policy); http and https only. The policy is applied to the address actually
/// connected to, after DNS, so a name that resolves to a private address later (DNS rebinding)
/// is still refused. Completions run on a concurrent queue, never on the transfer thread.
public final class CurlTransport: OutboundTransport, @unchecked Sendable {
    private static let initialized: Bool = { curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK }()

    /// One request under way: the easy handle and what it owns until the transfer ends.
    final class Transfer {
        let easy: UnsafeMutableRawPointer
        let completion: @Sendable (Result<OutboundResponse, any Error>) -> Void
        let allowPrivate: Bool
        var headerList: UnsafeMutablePointer<curl_slist>?
        var body: UnsafeMutableBufferPointer<UInt8>?
        var url: [CChar]
        var responsePrefix: [UInt8] = []
        /// How much of the response body is kept (`OutboundRequest.keptResponseBytes`).
        var responseLimit = 1024
        var responseHeaders: [String: String] = [:]
        var refusedAddress: String?

        init(
            easy: UnsafeMutableRawPointer, url: String, allowPrivate: Bool,
            completion: @escaping @Sendable (Result<OutboundResponse, any Error>) -> Void
        ) {
            self.easy = easy
            self.url = Array(url.utf8CString)
            self.allowPrivate = allowPrivate
            self.completion = completion
        }

        func release() {
            curl_easy_cleanup(easy)
            curl_slist_free_all(headerList)
            body?.deallocate()
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let connectTimeoutMilliseconds: Int
    private let totalTimeoutMilliseconds: Int
    private let allowPrivateAddresses: Bool
    private let completions = DispatchQueue(label: "attributiond.outbound.completions", attributes: .concurrent)
    // `queued` and `stopping` are only touched under `lock`; `running` only on the transfer thread.
    private let lock = NSLock()
    private var queued: [Transfer] = []
    private var stopping = false
    private var running: [UnsafeMutableRawPointer: Transfer] = [:]
    private let stopped = DispatchSemaphore(value: 0)
    private let trustedRoots: [CChar]?

    /// The transport outbound requests take under `policy`: connect within 5 s (or the whole
    /// request's time, when shorter).
    public convenience init(totalTimeout: Double = 15, policy: OutboundAddressPolicy) {
        self.init(connectTimeout: min(5, totalTimeout), totalTimeout: totalTimeout, allowPrivateAddresses: policy.allowPrivateAddresses)
    }

    /// - Parameter trustedRoots: a PEM file of CA certificates to verify servers with instead of
    ///   the system's (an ACME test CA's).
    public init(connectTimeout: Double = 5, totalTimeout: Double = 15, allowPrivateAddresses: Bool, trustedRoots: String? = nil) {
        precondition(Self.initialized, "libcurl could not be initialised")
        self.trustedRoots = trustedRoots.map { Array($0.utf8CString) }
        multi = curl_multi_init()
        connectTimeoutMilliseconds = Int(connectTimeout * 1000)
        totalTimeoutMilliseconds = Int(totalTimeout * 1000)
        self.allowPrivateAddresses = allowPrivateAddresses
        let thread = Thread { [self] in run() }
        thread.name = "outbound-http"
        thread.start()
    }

    public func send(_ request: OutboundRequest, completion: @escaping @Sendable (Result<OutboundResponse, any Error>) -> Void) {
        guard let easy = curl_easy_init() else { return completion(.failure(URLError(.unknown))) }
        let transfer = Transfer(easy: easy, url: request.url, allowPrivate: allowPrivateAddresses, completion: completion)
        transfer.responseLimit = request.keptResponseBytes
        configure(transfer, request)
        lock.lock()
        let refused = stopping
        if !refused { queued.append(transfer) }
        lock.unlock()
        if refused {
            transfer.release()
            return completion(.failure(URLError(.cancelled)))
        }
        curl_multi_wakeup(multi)
    }

    /// Stops the transfer thread; transfers under way end with an error. Later calls do nothing.
    public func shutdown() {
        lock.lock()
        let first = !stopping
        stopping = true
        lock.unlock()
        guard first else { return }
        curl_multi_wakeup(multi)
        stopped.wait()
    }

    private func configure(_ transfer: Transfer, _ request: OutboundRequest) {
        let easy = transfer.easy
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        transfer.url.withUnsafeBufferPointer { _ = attributiond_curl_set_pointer(easy, CURLOPT_URL, $0.baseAddress) }  // copied by libcurl
        _ = attributiond_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = attributiond_curl_set_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeoutMilliseconds)
        _ = attributiond_curl_set_long(easy, CURLOPT_TIMEOUT_MS, totalTimeoutMilliseconds)
        _ = attributiond_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = attributiond_curl_set_pointer(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        if let trustedRoots { trustedRoots.withUnsafeBufferPointer { _ = attributiond_curl_set_pointer(easy, CURLOPT_CAINFO, $0.baseAddress) } }
        _ = attributiond_curl_set_write_function(
            easy, CURLOPT_WRITEFUNCTION,
            { data, size, count, context in
                let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                let room = max(0, transfer.responseLimit - transfer.responsePrefix.count)
                if room > 0, let data {
                    data.withMemoryRebound(to: UInt8.self, capacity: length) {
                        transfer.responsePrefix.append(contentsOf: UnsafeBufferPointer(start: $0, count: min(room, length)))
                    }
                }
                return length
            })
        _ = attributiond_curl_set_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = attributiond_curl_set_write_function(
            easy, CURLOPT_HEADERFUNCTION,
            { data, size, count, context in
                let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
                let length = size * count
                if let data, length < 8192 {
                    let line = data.withMemoryRebound(to: UInt8.self, capacity: length) {
                        String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
                    }
                    if line.hasPrefix("HTTP/") { transfer.responseHeaders.removeAll() }  // a new response (after 100 Continue)
                    if let colon = line.firstIndex(of: ":") {
                        let name = line[..<colon].lowercased()
                        transfer.responseHeaders[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
                    }
                }
                return length
            })
        _ = attributiond_curl_set_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = attributiond_curl_set_opensocket_function(easy) { context, _, address in
            guard let context, let address else { return CURL_SOCKET_BAD }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            let family = address.pointee.family
            if !transfer.allowPrivate {
                let bytes: [UInt8] = withUnsafePointer(to: &address.pointee.addr) { pointer in
                    if family == AF_INET {
                        return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                            withUnsafeBytes(of: inet.pointee.sin_addr) { Array($0) }
                        }
                    }
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                        withUnsafeBytes(of: inet6.pointee.sin6_addr) { Array($0) }
                    }
                }
                if OutboundAddressPolicy.isInternal(bytes) {
                    transfer.refusedAddress = OutboundAddressPolicy.describe(bytes)
                    return CURL_SOCKET_BAD
                }
            }
            return socket(family, address.pointee.socktype, address.pointee.protocol)
        }
        _ = attributiond_curl_set_pointer(easy, CURLOPT_OPENSOCKETDATA, context)

        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers { list = curl_slist_append(list, "\(header.name): \(header.value)") }
        list = curl_slist_append(list, "Expect:")  // no 100-continue round trip for small bodies
        transfer.headerList = list
        _ = attributiond_curl_set_pointer(easy, CURLOPT_HTTPHEADER, list)
        if request.method == "GET" {
            _ = attributiond_curl_set_long(easy, CURLOPT_HTTPGET, 1)
        } else if request.method == "HEAD" {
            _ = attributiond_curl_set_long(easy, CURLOPT_NOBODY, 1)
        } else {
            let body = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, request.body.count))
            _ = body.initialize(from: request.body)
            transfer.body = body
            _ = attributiond_curl_set_long(easy, CURLOPT_POSTFIELDSIZE, request.body.count)
            _ = attributiond_curl_set_pointer(easy, CURLOPT_POSTFIELDS, body.baseAddress)
            if request.method != "POST" { _ = attributiond_curl_set_pointer(easy, CURLOPT_CUSTOMREQUEST, request.method) }
        }
    }

    private func run() {
        while true {
            lock.lock()
            let incoming = queued
            queued.removeAll()
            let stop = stopping
            lock.unlock()
            for transfer in incoming {
                running[transfer.easy] = transfer
                curl_multi_add_handle(multi, transfer.easy)
            }
            if stop {
                for transfer in running.values { finish(transfer, result: CURLE_ABORTED_BY_CALLBACK) }
                running.removeAll()
                curl_multi_cleanup(multi)
                stopped.signal()
                return
            }
            var active: Int32 = 0
            curl_multi_perform(multi, &active)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = running.removeValue(forKey: easy)
                else { continue }
                finish(transfer, result: message.pointee.data.result)
            }
            curl_multi_poll(multi, nil, 0, 1000, nil)
        }
    }

    private func finish(_ transfer: Transfer, result: CURLcode) {
        curl_multi_remove_handle(multi, transfer.easy)
        var code = 0
        _ = attributiond_curl_get_long(transfer.easy, CURLINFO_RESPONSE_CODE, &code)
        let outcome: Result<OutboundResponse, any Error>
        if let refused = transfer.refusedAddress {
            outcome = .failure(OutboundAddressRefused(address: refused))
        } else if result == CURLE_OK {
            outcome = .success(
                OutboundResponse(
                    statusCode: code, headers: transfer.responseHeaders,
                    bodyPrefix: String(decoding: transfer.responsePrefix, as: UTF8.self)))
        } else {
            outcome = .failure(CurlError(code: Int(result.rawValue), message: String(cString: curl_easy_strerror(result))))
        }
        transfer.release()
        let completion = transfer.completion
        completions.async { completion(outcome) }
    }
}

/// A transfer that ended without an answer (connection refused or reset, timeout, TLS failure).
public struct CurlError: Error, CustomStringConvertible {
    public let code: Int
    public let message: String
    public var description: String { "\(message) (curl \(code))" }
}
