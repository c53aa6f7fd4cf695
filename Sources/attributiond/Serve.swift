import API
import Foundation
import ArgumentParser
@preconcurrency import Dispatch
import HTTP
import App
import Attribution
import Store
#if canImport(Glibc)
import Glibc
#endif

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server in the foreground (the default command).")

    @OptionGroup var global: GlobalOptions

    @Option(help: "Address to listen on (0.0.0.0 for all IPv4, :: for IPv4 and IPv6). Default 0.0.0.0.")
    var host: String?

    @Option(help: "Port to listen on (0 picks a free one). Default 8080.")
    var port: UInt16?

    @Option(name: .customLong("drain-seconds"), help: "On SIGTERM/SIGINT, how long in-flight requests may take. Default 10.")
    var drainSeconds: Int?

    func validate() throws {
        if let drainSeconds, !(0...3600).contains(drainSeconds) {
            throw ValidationError("--drain-seconds must be between 0 and 3600")
        }
    }

    func run() throws {
        SignalHandling.blockInEveryThread()
        MemoryPolicy.apply()
        var configuration = try global.loadConfiguration()
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let drainSeconds { configuration.drainSeconds = drainSeconds }
        configuration.limits.drainTimeout = .seconds(configuration.drainSeconds)

        let sink: LogSink
        do {
            sink = try LogSink(path: configuration.logFile)
        } catch {
            FileHandleOutput.standardError("configuration: log_file: cannot open \(configuration.logFile ?? "") for appending")
            throw ExitCode(2)
        }
        LifecycleLog.sink = sink
        let store = try global.openStore(configuration)
        let adminKey: (hash: [UInt8]?, origin: ServerAdminKey.Origin)
        do {
            adminKey = try ServerAdminKey.resolve(configured: configuration.adminKey, store: store, now: SystemClock().now())
        } catch {
            LifecycleLog.write(level: "error", message: "cannot read or keep the admin key", fields: ["error": "\(error)"])
            throw ExitCode.failure
        }
        let services = Services(store: store, adminKey: configuration.adminKey, adminKeyHash: adminKey,
                                metricsToken: configuration.metricsToken,
                                trustedProxies: configuration.trustedProxies, publicURL: configuration.publicURL,
                                allowedHosts: configuration.allowedHosts,
                                defaultProject: configuration.defaultProject,
                                outboundPolicy: OutboundAddressPolicy(allowPrivateAddresses: configuration.outbound.allowPrivateAddresses),
                                appleAds: configuration.appleAds, dashboard: configuration.dashboard) { error, request in
            LifecycleLog.write(level: "error", message: "internal error", fields: ["request": request, "error": "\(error)"])
        }
        do {
            for line in try DeclaredProjects.reconcile(configuration.projects, services: services) {
                LifecycleLog.write(level: "info", message: line, fields: [:])
            }
        } catch let problem as DeclaredProjects.Problem {
            FileHandleOutput.standardError("configuration: \(problem)")
            throw ExitCode(2)
        }

        // Request lines at info level and below; `log_level: warning` or higher turns them off.
        let requestLog = ["trace", "debug", "info"].contains(configuration.logLevel) ? RequestLog(logIP: configuration.logIP, sink: sink) : nil
        let connections = ConnectionCount()
        let refused: @Sendable (String) -> Void = { problem in
            LifecycleLog.write(level: "error", message: "response refused", fields: ["problem": problem])
        }
        let server = HTTPServer(host: configuration.host, port: configuration.port, limits: configuration.limits,
                                onRefusedResponse: refused,
                                responder: Application.makeResponder(
                                    services: services,
                                    rateLimit: configuration.rateLimit.map { RateLimitSettings(ratePerSecond: $0.perSecond, burst: $0.burst) },
                                    log: requestLog, openConnections: { connections.server?.openConnectionCount ?? 0 }))
        connections.server = server
        let dashboardWarmup = DashboardWarmup(services: services)
        let retention = configuration.clickRetentionHours == 0 ? nil : RetentionJob(
            retention: store.clickRetention, hours: configuration.clickRetentionHours, clock: services.clock,
            testProjectTimes: { [clocks = services.app.clocks] in clocks.testProjectTimes() }) { deleted, cutoff in
            LifecycleLog.write(level: "info", message: "retention", fields: ["deleted_clicks": String(deleted), "before": cutoff.iso8601])
        }
        // HTTPS beside HTTP, with the same application, limits and timeouts.
        let secure: HTTPServer?
        if let tls = configuration.tls {
            do {
                let context = try TLSContext(certificatePath: tls.cert, privateKeyPath: tls.key)
                secure = HTTPServer(host: configuration.host, port: tls.port, limits: configuration.limits, tls: context,
                                    onRefusedResponse: refused, responder: server.responder)
            } catch {
                FileHandleOutput.standardError("configuration: \(error)")
                throw ExitCode(2)
            }
        } else {
            secure = nil
        }
        let stopped = DispatchSemaphore(value: 0)
        // Installed before the server listens: a signal that arrives as soon as "listening" is
        // logged must find its handler (an inherited SIG_IGN would otherwise swallow it).
        let signals = SignalHandling { signal in
            LifecycleLog.write(level: "info", message: "draining", fields: ["signal": signal])
            let group = DispatchGroup()
            group.enter()
            server.shutdown { group.leave() }
            if let secure {
                group.enter()
                secure.shutdown { group.leave() }
            }
            group.notify(queue: .global()) { stopped.signal() }
        }
        // SIGHUP: reopen the log file (after logrotate moved it away).
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangup.setEventHandler {
            requestLog?.flush()
            do {
                try sink.reopen()
                LifecycleLog.write(level: "info", message: "reopened log file", fields: ["path": sink.path ?? "stderr"])
            } catch {
                FileHandleOutput.standardError("cannot reopen \(sink.path ?? ""): \(error)")
            }
        }
        hangup.resume()
        do {
            try server.start()
            try secure?.start()
        } catch {
            LifecycleLog.write(level: "error", message: "could not start", fields: ["error": "\(error)"])
            throw ExitCode.failure
        }
        services.publicHosts.listening(on: configuration.host, port: server.port)
        LifecycleLog.write(level: "info", message: "listening", fields: [
            "address": server.boundAddress.map { "\($0)" } ?? "\(configuration.host):\(configuration.port)",
            "db": configuration.postgresURL.map(GlobalOptions.redacted) ?? configuration.db,
            "admin_api": adminKey.hash == nil ? "off" : "on",
            "https": secure?.boundAddress.map { "\($0)" } ?? "off",
        ])
        if case .madeNow(let key) = adminKey.origin {
            let host = ["0.0.0.0", "::", ""].contains(configuration.host) ? "127.0.0.1" : configuration.host
            let place = configuration.dashboard.enabled ? "sign in at http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)\(configuration.dashboard.prefix)"
                                                        : "use it as Authorization: Bearer <key> on /admin/v1"
            FileHandleOutput.standardError("""
                attributiond: first start, so an admin key was made for this server (shown only now; kept hashed):

                    \(key)

                Keep it in a password manager, then \(place). Set ATTRIBUTIOND_ADMIN_KEY to use a key of your own instead.
                """)
            LifecycleLog.write(level: "warning", message: "admin key made on first start and printed once above", fields: [:])
        }
        // Webhooks and postbacks: jobs left by the last run (or by another process) go out now.
        var outboxSettings = OutboxWorker.Settings()
        outboxSettings.userAgent = "attributiond/\(Version.number)"
        outboxSettings.deliveredRetentionHours = configuration.outbound.deliveredRetentionHours
        // A lease outlives the longest attempt, so only a dead worker's jobs are taken again.
        let requestTimeout = Double(configuration.outbound.requestTimeoutSeconds)
        outboxSettings.leaseSeconds = Int64(configuration.outbound.requestTimeoutSeconds) + 5
        outboxSettings.onFinalFailure = { job, attempts, error in
            LifecycleLog.write(level: "warning", message: "delivery failed", fields: [
                "delivery": job.id, "kind": job.kind, "event_type": job.eventType, "project": job.projectID,
                "host": URLComponents(string: job.targetURL)?.host ?? "", "attempts": String(attempts), "error": error,
            ])
        }
        let outboxTransport = services.app.makeTransport(totalTimeout: requestTimeout)
        let outbox = services.app.makeOutboxWorker(transport: outboxTransport, settings: outboxSettings)
        // A node may take requests and write jobs without delivering them (another node does).
        // Where the events are the outbox's log, the worker that delivers also makes their jobs.
        if configuration.outbound.deliver { outbox.start() }
        // After listening, so a large links table never delays start-up.
        DispatchQueue.global(qos: .utility).async { Self.reportRefusedStoredValues(services) }
        stopped.wait()
        hangup.cancel()
        withExtendedLifetime(signals) {}
        retention?.stop()
        dashboardWarmup.stop()
        // Deliveries under way may finish within the drain time; the rest go out at the next start.
        outbox.stop(drainSeconds: Double(configuration.drainSeconds))
        outboxTransport.shutdown()
        requestLog?.flush()
        do {
            try store.close()
        } catch {
            LifecycleLog.write(level: "warning", message: "closing the database failed", fields: ["error": "\(error)"])
        }
        LifecycleLog.write(level: "info", message: "stopped", fields: [:])
    }
}

extension Serve {
    /// One warning per stored value that today's rules would refuse (see `StoredValueAudit`).
    static func reportRefusedStoredValues(_ services: Services) {
        do {
            let findings = try StoredValueAudit.findings(app: services.app)
            for finding in findings {
                LifecycleLog.write(level: "warning", message: "stored value refused by the current rules", fields: [
                    "kind": finding.kind, "id": finding.id, "project": finding.projectID,
                    "field": finding.problem.key, "problem": finding.problem.message,
                ])
            }
            if !findings.isEmpty {
                LifecycleLog.write(level: "warning", message: "stored values to correct", fields: [
                    "count": String(findings.count),
                    "hint": "the rows are served as stored; update them through the admin API",
                ])
            }
        } catch {
            LifecycleLog.write(level: "warning", message: "stored value audit failed", fields: ["error": "\(error)"])
        }
    }
}

/// SIGTERM and SIGINT start a graceful shutdown; a second one exits at once.
final class SignalHandling {
    private let sources: [any DispatchSourceSignal]

    /// The signals the server takes through dispatch sources.
    static let handled = [SIGTERM, SIGINT, SIGHUP]

    /// Blocks the handled signals in the calling thread, so in every thread made after it: call
    /// first, before any thread exists. On Linux a dispatch signal source reads a `signalfd`, which
    /// sees only signals blocked in every thread; one left unblocked in any thread may be handed
    /// to that thread and, ignored there, lost (a SIGINT lost so under load hung a test for 60 s).
    static func blockInEveryThread() {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handled { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    init(onFirst: @escaping @Sendable (String) -> Void) {
        let queue = DispatchQueue(label: "attributiond.signals")
        nonisolated(unsafe) var received = false
        sources = [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")].map { number, name in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                if received {
                    LifecycleLog.write(level: "warning", message: "second signal: exiting now", fields: ["signal": name])
                    exit(1)
                }
                received = true
                onFirst(name)
            }
            source.resume()
            return source
        }
        signal(SIGPIPE, SIG_IGN)
    }
}

/// Lets /metrics read the server's connection count (the server is made after its responder).
final class ConnectionCount: @unchecked Sendable {
    var server: HTTPServer?
}
