public import Attribution
import Cryptography
public import Dispatch
import Foundation
public import Lifecycle
public import Logging
public import StoreContracts
import Synchronization

/// Where and how the server gets certificates for project domains (`acme` in the configuration).
public struct ACMESettings: Sendable {
    public var directoryURL: String
    public var email: String?
    /// Before ordering, fetch a token over HTTP from the domain to see it reaches this server
    /// (`ATTRIBUTIOND_ACME_VERIFY=false` skips it: tests, and operators who vouch for their DNS).
    public var verifyReachability = true
    /// How often domains are looked at (certificates due, other nodes' new certificates).
    public var checkInterval: Duration = .seconds(60)

    public init(directoryURL: String, email: String?) {
        self.directoryURL = directoryURL
        self.email = email
    }
}

/// Gets and renews a certificate for every project domain (ACME HTTP-01), keeps them in the store
/// so that every node serves the same ones, and hands each to `install` for the TLS listener.
/// A certificate is renewed at two thirds of its lifetime; a domain that fails waits 1, 2, 4 …
/// minutes (at most a day) before the next try, so the CA is never hammered.
public final class CertificateService: Service, @unchecked Sendable {
    public let serviceName = "certificates"
    private let settings: ACMESettings
    private let store: any StoreBackend
    private let clock: any Clock
    private let transport: any OutboundTransport
    /// The reachability probe's: under the outbound address policy, since a tenant chooses the name
    /// (a name resolving to an internal address must not be fetched blind).
    private let probeTransport: any OutboundTransport
    private let install: @Sendable (_ domain: String, _ chainPEM: String, _ keyPEM: String) -> Void
    private let logger: Logger
    private let wakeUp = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// The chains installed so far, by domain, so that an unchanged one is not installed again.
    private let installed = Mutex<[String: String]>([:])

    public init(
        settings: ACMESettings, store: any StoreBackend, clock: any Clock, transport: any OutboundTransport,
        probeTransport: (any OutboundTransport)? = nil, logger: Logger, install: @escaping @Sendable (String, String, String) -> Void
    ) {
        self.settings = settings
        self.store = store
        self.clock = clock
        self.transport = transport
        self.probeTransport = probeTransport ?? transport
        self.logger = logger
        self.install = install
    }

    public func start() throws {
        try installStored()
        let thread = Thread { [self] in
            while !stopping.load(ordering: .relaxed) {
                runOnce()
                let seconds = Double(settings.checkInterval.components.seconds)
                _ = wakeUp.wait(timeout: .now() + max(0.05, seconds))
            }
            finished.signal()
        }
        thread.name = "certificates"
        thread.start()
    }

    public func stop(by deadline: DispatchTime) {
        stopping.store(true, ordering: .relaxed)
        wakeUp.signal()
        _ = finished.wait(timeout: deadline)
    }

    /// Looks at the domains now rather than at the next interval (a domain was just added).
    public func wake() { wakeUp.signal() }

    /// Installs the stored certificates (another node's too), then gets those that are due.
    public func runOnce() {
        do {
            try installStored()
            let records = Dictionary(try store.certificates.certificates().map { ($0.domain, $0) }, uniquingKeysWith: { first, _ in first })
            let now = clock.now()
            for domain in try store.domains.all().map(\.domain) where Self.isDue(records[domain], now: now) {
                guard !stopping.load(ordering: .relaxed) else { return }
                obtain(domain, failures: records[domain]?.failures ?? 0)
            }
        } catch {
            logger.error("certificates: the store could not be read", metadata: ["error": "\(error)"])
        }
    }

    /// Whether a domain needs a certificate now: none yet, or two thirds of its lifetime gone, and
    /// no back-off after a failure still running.
    static func isDue(_ record: DomainCertificateRecord?, now: Timestamp) -> Bool {
        guard let record else { return true }
        if now < record.nextAttemptAt { return false }
        guard let notBefore = record.notBefore, let notAfter = record.notAfter, record.chainPEM != nil else { return true }
        let renewAt = notBefore + (notAfter - notBefore) * 2 / 3
        return now.milliseconds / 1000 >= renewAt
    }

    /// The wait after the `failures`-th failure in a row: 1, 2, 4 … minutes, at most a day.
    static func backOff(afterFailures failures: Int) -> Int64 {
        min(24 * 3600, 60 << Int64(min(max(failures - 1, 0), 20))) * 1000
    }

    private func obtain(_ domain: String, failures: Int) {
        let now = clock.now()
        do {
            // One node at a time orders a domain's certificate: the others see the lease and skip it.
            guard try store.certificates.leaseAttempt(domain: domain, until: Timestamp(milliseconds: now.milliseconds + 600_000), now: now)
            else { return }
            if settings.verifyReachability { try checkReachable(domain) }
            let client = try accountClient()
            guard let key = Certificates.newP256KeyPEM() else { throw ACMEClient.Failure(description: "cannot make a key") }
            let chain = try client.certificate(for: domain, certificateKeyPEM: key) { token, keyAuthorization in
                try store.certificates.putChallenge(token: token, keyAuthorization: keyAuthorization, domain: domain, at: clock.now())
            }
            try? store.certificates.deleteChallenges(domain: domain)
            guard let validity = Certificates.validity(ofPEM: chain) else { throw ACMEClient.Failure(description: "the certificate cannot be read") }
            try store.certificates.saveCertificate(
                domain: domain, chainPEM: chain, keyPEM: key, notBefore: validity.notBefore, notAfter: validity.notAfter, at: clock.now())
            install(domain, chain, key)
            installed.withLock { $0[domain] = chain }
            logger.notice("certificate obtained", metadata: ["domain": "\(domain)", "not_after": "\(validity.notAfter)"])
        } catch {
            try? store.certificates.deleteChallenges(domain: domain)
            let count = failures + 1
            let next = Timestamp(milliseconds: now.milliseconds + Self.backOff(afterFailures: count))
            try? store.certificates.recordFailure(domain: domain, error: "\(error)", failures: count, nextAttemptAt: next, at: now)
            logger.warning(
                "certificate not obtained",
                metadata: ["domain": "\(domain)", "error": "\(error)", "failures": "\(count)", "retry_at": "\(next.iso8601)"])
        }
    }

    /// The account for the directory, registered on first use and kept in the store.
    private func accountClient() throws -> ACMEClient {
        if let account = try store.certificates.account(directoryURL: settings.directoryURL) {
            return ACMEClient(
                directoryURL: settings.directoryURL, accountKeyPEM: account.keyPEM, accountURL: account.accountURL, transport: transport)
        }
        guard let key = Certificates.newP256KeyPEM() else { throw ACMEClient.Failure(description: "cannot make an account key") }
        let client = ACMEClient(directoryURL: settings.directoryURL, accountKeyPEM: key, accountURL: nil, transport: transport)
        let url = try client.register(email: settings.email)
        try store.certificates.saveAccount(
            ACMEAccountRecord(directoryURL: settings.directoryURL, keyPEM: key, accountURL: url, createdAt: clock.now()))
        return client
    }

    /// Serves a random token and fetches it from the domain over HTTP: the CA would fail the same
    /// way (and count it against the account) if the name does not reach this server.
    private func checkReachable(_ domain: String) throws {
        let token = "probe-" + Base64URL.encode(Secrets.randomBytes(16))
        try store.certificates.putChallenge(token: token, keyAuthorization: token, domain: domain, at: clock.now())
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer: Result<OutboundResponse, any Error> = .failure(ACMEClient.Failure(description: "no answer"))
        probeTransport.send(
            OutboundRequest(method: "GET", url: "http://\(domain)/.well-known/acme-challenge/\(token)", headers: [], body: [])
        ) {
            answer = $0
            done.signal()
        }
        done.wait()
        guard case .success(let response) = answer, response.statusCode == 200, response.bodyPrefix == token else {
            throw ACMEClient.Failure(
                description: "http://\(domain)/ does not reach this server (set ATTRIBUTIOND_ACME_VERIFY=false to skip this check)")
        }
    }

    private func installStored() throws {
        for record in try store.certificates.certificates() {
            guard let chain = record.chainPEM, let key = record.keyPEM, installed.withLock({ $0[record.domain] }) != chain else { continue }
            install(record.domain, chain, key)
            installed.withLock { $0[record.domain] = chain }
        }
    }
}
