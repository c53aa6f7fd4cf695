import Attribution
import Cryptography
import Foundation

/// An ACME client (RFC 8555) for one directory and account key: JWS-signed requests (ES256), the
/// nonces they need, and the order of one certificate with HTTP-01 challenges. Synchronous: it
/// runs on the certificate service's own thread, never on an event loop.
final class ACMEClient: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let directoryURL: String
    private let transport: any OutboundTransport
    private let accountKeyPEM: String
    private var directory: [String: Any] = [:]
    private var nonce: String?
    /// The account's URL once registered: the `kid` of every later request.
    private(set) var accountURL: String?

    init(directoryURL: String, accountKeyPEM: String, accountURL: String?, transport: any OutboundTransport) {
        self.directoryURL = directoryURL
        self.accountKeyPEM = accountKeyPEM
        self.accountURL = accountURL
        self.transport = transport
    }

    /// The account key's JWK (RFC 7517), its members in the order RFC 7638 hashes them.
    var jwk: [String: String] {
        get throws {
            guard let point = Certificates.publicPoint(ofP256KeyPEM: accountKeyPEM) else {
                throw Failure(description: "the account key is not a P-256 key")
            }
            return ["crv": "P-256", "kty": "EC", "x": Base64URL.encode(point.x), "y": Base64URL.encode(point.y)]
        }
    }

    /// RFC 7638's thumbprint of the account key: the second half of every key authorization.
    var thumbprint: String {
        get throws {
            let key = try jwk
            let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(key["x"]!)","y":"\#(key["y"]!)"}"#
            return Base64URL.encode(Secrets.sha256(Array(canonical.utf8)))
        }
    }

    // MARK: The account

    /// Registers the account key (or finds its account again): its URL.
    func register(email: String?) throws -> String {
        var payload: [String: Any] = ["termsOfServiceAgreed": true]
        if let email { payload["contact"] = ["mailto:\(email)"] }
        let response = try post(try endpoint("newAccount"), payload: payload, useJWK: true)
        guard (200...201).contains(response.status), let location = response.headers["location"] else {
            throw Failure(description: "newAccount answered \(response.status): \(response.body.prefix(300))")
        }
        accountURL = location
        return location
    }

    // MARK: A certificate

    /// Orders a certificate for `domain` and proves control of it with HTTP-01: `publish` is given
    /// each token and key authorization to serve before the CA is told to look. Returns the PEM
    /// chain for a CSR signed with `certificateKeyPEM`.
    func certificate(
        for domain: String, certificateKeyPEM: String, publish: (_ token: String, _ keyAuthorization: String) throws -> Void
    ) throws -> String {
        let ordered = try post(try endpoint("newOrder"), payload: ["identifiers": [["type": "dns", "value": domain]]])
        guard ordered.status == 201, let orderURL = ordered.headers["location"], var order = ordered.json else {
            throw Failure(description: "newOrder answered \(ordered.status): \(ordered.body.prefix(300))")
        }
        for authorization in order["authorizations"] as? [String] ?? [] {
            try authorize(authorization, publish: publish)
        }
        guard let finalize = order["finalize"] as? String,
            let csr = Certificates.signingRequest(names: [domain], keyPEM: certificateKeyPEM)
        else { throw Failure(description: "the order has no finalize URL, or no CSR could be made") }
        let finalized = try post(finalize, payload: ["csr": Base64URL.encode(csr)])
        guard (200...299).contains(finalized.status), let answer = finalized.json else {
            throw Failure(description: "finalize answered \(finalized.status): \(finalized.body.prefix(300))")
        }
        order = answer
        var polls = 0
        while order["status"] as? String != "valid" {
            guard ["processing", "pending", "ready"].contains(order["status"] as? String ?? ""), polls < 30 else {
                throw Failure(description: "the order ended \(order["status"] ?? "without a status"): \(order["error"] ?? "")")
            }
            polls += 1
            Thread.sleep(forTimeInterval: 1)
            order = try post(orderURL, payload: nil).json ?? [:]
        }
        guard let certificateURL = order["certificate"] as? String else { throw Failure(description: "the valid order names no certificate") }
        let chain = try post(certificateURL, payload: nil, accept: "application/pem-certificate-chain")
        guard chain.status == 200, chain.body.contains("BEGIN CERTIFICATE") else {
            throw Failure(description: "the certificate download answered \(chain.status)")
        }
        return chain.body
    }

    private func authorize(_ url: String, publish: (String, String) throws -> Void) throws {
        var authorization = try post(url, payload: nil).json ?? [:]
        if authorization["status"] as? String == "valid" { return }
        guard let challenges = authorization["challenges"] as? [[String: Any]],
            let challenge = challenges.first(where: { $0["type"] as? String == "http-01" }),
            let token = challenge["token"] as? String, let challengeURL = challenge["url"] as? String
        else { throw Failure(description: "the authorization offers no http-01 challenge") }
        try publish(token, "\(token).\(try thumbprint)")
        let told = try post(challengeURL, payload: [String: Any]())
        guard (200...299).contains(told.status) else { throw Failure(description: "the challenge answered \(told.status): \(told.body.prefix(300))") }
        var polls = 0
        while authorization["status"] as? String != "valid" {
            guard authorization["status"] as? String == "pending" || authorization["status"] == nil, polls < 30 else {
                let detail = (authorization["challenges"] as? [[String: Any]])?.compactMap { $0["error"] }.first ?? ""
                throw Failure(description: "the authorization ended \(authorization["status"] ?? "without a status"): \(detail)")
            }
            polls += 1
            Thread.sleep(forTimeInterval: 1)
            authorization = try post(url, payload: nil).json ?? [:]
        }
    }

    // MARK: Requests

    struct Response {
        let status: Int
        let headers: [String: String]
        let body: String
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] }
    }

    private func endpoint(_ name: String) throws -> String {
        if directory.isEmpty {
            let answer = try send(method: "GET", url: directoryURL, body: [])
            guard answer.status == 200, let json = answer.json else { throw Failure(description: "the directory answered \(answer.status)") }
            directory = json
        }
        guard let url = directory[name] as? String else { throw Failure(description: "the directory has no \(name)") }
        return url
    }

    /// A JWS-signed POST (`payload` nil: POST-as-GET), once more with a fresh nonce if the CA
    /// refused the nonce (`badNonce`, which a CA may send at any time).
    private func post(_ url: String, payload: Any?, useJWK: Bool = false, accept: String? = nil) throws -> Response {
        for attempt in 0..<3 {
            let body = try signed(url: url, payload: payload, useJWK: useJWK)
            var headers = [("Content-Type", "application/jose+json")]
            if let accept { headers.append(("Accept", accept)) }
            let answer = try send(method: "POST", url: url, body: body, headers: headers)
            if answer.status == 400, answer.body.contains("urn:ietf:params:acme:error:badNonce"), attempt < 2 { continue }
            return answer
        }
        throw Failure(description: "the CA refused every nonce")
    }

    private func signed(url: String, payload: Any?, useJWK: Bool) throws -> [UInt8] {
        var protected: [String: Any] = ["alg": "ES256", "nonce": try freshNonce(), "url": url]
        if useJWK || accountURL == nil { protected["jwk"] = try jwk } else { protected["kid"] = accountURL! }
        let header = Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: protected, options: [.sortedKeys])))
        let body =
            payload.map {
                Base64URL.encode(Array((try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys])) ?? Data()))
            } ?? ""
        guard let signature = ES256.sign(Array("\(header).\(body)".utf8), privateKeyPEM: accountKeyPEM) else {
            throw Failure(description: "cannot sign with the account key")
        }
        let jws: [String: String] = ["protected": header, "payload": body, "signature": Base64URL.encode(signature)]
        return Array(try JSONSerialization.data(withJSONObject: jws, options: [.sortedKeys]))
    }

    private func freshNonce() throws -> String {
        if let nonce {
            self.nonce = nil
            return nonce
        }
        let answer = try send(method: "HEAD", url: try endpoint("newNonce"), body: [])
        guard let nonce = answer.headers["replay-nonce"] else { throw Failure(description: "newNonce gave no Replay-Nonce") }
        return nonce
    }

    private func send(method: String, url: String, body: [UInt8], headers: [(String, String)] = []) throws -> Response {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<OutboundResponse, any Error> = .failure(Failure(description: "no answer"))
        transport.send(
            OutboundRequest(method: method, url: url, headers: headers.map { (name: $0.0, value: $0.1) }, body: body, keptResponseBytes: 1 << 20)
        ) {
            result = $0
            done.signal()
        }
        done.wait()
        let response = try result.get()
        if let next = response.headers["replay-nonce"] { nonce = next }
        return Response(status: response.statusCode, headers: response.headers, body: response.bodyPrefix)
    }
}
