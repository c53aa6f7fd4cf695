import App
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The transport attributiond measured against libcurl and did not take (docs/outbound.md): kept
// here so that the comparison can be run again (`outbox-bench --transport urlsession`).

/// `URLSession` from FoundationNetworking (libcurl underneath, shipped with the toolchain):
/// certificates verified by the system store, no redirects followed (a redirect could lead past
/// the address policy), at most 5 s without progress, which bounds the connect, and 15 s in all.
final class URLSessionTransport: NSObject, OutboundTransport, URLSessionTaskDelegate, @unchecked Sendable {
    /// Several sessions, used in turn: one FoundationNetworking session runs its transfers and
    /// their completions on one thread each, which capped a node near 1,800 deliveries/s
    /// (outbox-bench); four carry the work on four.
    private var sessions: [URLSession] = []
    private let next = Atomic<Int>(0)

    public init(
        progressTimeout: TimeInterval = 5, totalTimeout: TimeInterval = 15, maximumConnectionsPerHost: Int = 8,
        sessionCount: Int = 4
    ) {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = progressTimeout
        configuration.timeoutIntervalForResource = totalTimeout
        configuration.httpMaximumConnectionsPerHost = maximumConnectionsPerHost
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        sessions = (0..<max(1, sessionCount)).map { _ in URLSession(configuration: configuration, delegate: self, delegateQueue: nil) }
    }

    public func send(_ request: OutboundRequest, completion: @escaping @Sendable (Result<OutboundResponse, any Error>) -> Void) {
        guard let url = URL(string: request.url) else { return completion(.failure(URLError(.badURL))) }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let session = sessions[next.wrappingAdd(1, ordering: .relaxed).oldValue % sessions.count]
        session.dataTask(with: urlRequest) { data, response, error in
            if let error { return completion(.failure(error)) }
            guard let http = response as? HTTPURLResponse else { return completion(.failure(URLError(.badServerResponse))) }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            let prefix = String(decoding: (data ?? Data()).prefix(1024), as: UTF8.self)
            completion(.success(OutboundResponse(statusCode: http.statusCode, headers: headers, bodyPrefix: prefix)))
        }.resume()
    }

    /// Redirects are answered as they are (a 3xx is not a success).
    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    public func shutdown() { for session in sessions { session.invalidateAndCancel() } }
}
