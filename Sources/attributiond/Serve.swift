import API
import App
import ArgumentParser
import Attribution
import Configuration
import CurlTransport
@preconcurrency import Dispatch
import Foundation
import HTTP
import Lifecycle
import Logging
import Store
import StoreContracts

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
        let configuration = try settings()
        let sink = try Self.openLog(configuration)
        LifecycleLog.sink = sink
        ServerLogHandler.bootstrap(level: Logger.Level(rawValue: configuration.logLevel) ?? .info)
        let countries = try Self.countries(configuration)
        let addressLists = try Self.addressLists(configuration)
        // Held until the process ends (`withExtendedLifetime` below).
        var fileLock: ServerFileLock?
        if configuration.postgresURL == nil {
            switch ServerFileLock.acquire(databasePath: configuration.db) {
            case .success(let lock): fileLock = lock
            case .failure(let refusal):
                LifecycleLog.write(level: "error", message: "refused to start", fields: ["reason": refusal.message])
                throw ExitCode.failure
            }
        }
        defer { withExtendedLifetime(fileLock) {} }
        let store = try global.openStore(configuration)
        let adminKey = try Self.adminKey(configuration, store)
        // Until the key is shown (once the listeners are up), a failed start forgets it.
        var keyShown = false
        defer { if !keyShown { ServerAdminKey.forgetUnshown(adminKey.origin, store: store) } }
        let services = Self.services(configuration, store, adminKey: adminKey, countries: countries, addressLists: addressLists)
        try Self.reconcileDeclaredProjects(configuration, services)
        // Request lines at info level and below; `log_level: warning` or higher turns them off.
        let requestLog = ["trace", "debug", "info"].contains(configuration.logLevel) ? RequestLog(logIP: configuration.logIP, sink: sink) : nil
        let certificates = Self.certificates(configuration, services)
        let listeners = try Self.listeners(configuration, services, requestLog: requestLog, serverNames: certificates?.1)
        let (outbox, transport) = Self.outbox(configuration, services)

        // Started in this order, stopped in the reverse one: the listeners drain first, the
        // store closes last.
        var parts: [any Service] = [
            ClosureService(
                "store",
                stop: { _ in
                    do { try store.close() } catch {
                        LifecycleLog.write(level: "warning", message: "closing the database failed", fields: ["error": "\(error)"])
                    }
                }),
            ClosureService("request log", stop: { _ in requestLog?.flush() }),
            ClosureService("outbound transport", stop: { _ in transport.shutdown() }),
        ]
        // A node may take requests and write jobs without delivering them (another node does).
        // Where the events are the outbox's log, the worker that delivers also makes their jobs.
        if configuration.outbound.deliver { parts.append(outbox) }
        if let retention = Self.retention(configuration, store: store, services: services) { parts.append(retention) }
        parts.append(CostPullJob(pulls: services.app.costPulls, rates: services.app.rateFetcher))
        if configuration.export.run {
            let exportTransport = Self.exportTransport(configuration, services)
            parts.append(ClosureService("export transport", stop: { _ in exportTransport.shutdown() }))
            parts.append(ExportJob(exports: services.app.exports, every: .seconds(configuration.export.intervalSeconds)))
        }
        if configuration.privateRelayRefresh, configuration.privateRelayList != nil {
            parts.append(PrivateRelayRefreshJob(configuration: configuration, lists: addressLists))
        }
        if let (service, _, transport) = certificates {
            parts.append(ClosureService("acme transport", stop: { _ in transport.shutdown() }))
            parts.append(service)
        }
        parts.append(DashboardWarmup(services: services))
        parts.append(listeners.group)
        let group = ServiceGroup(parts) { event in
            switch event {
            case .started(let name): LifecycleLog.write(level: "debug", message: "started", fields: ["service": name])
            case .stopped(let name, let late):
                LifecycleLog.write(
                    level: late ? "warning" : "debug", message: late ? "stopped late" : "stopped",
                    fields: ["service": name])
            }
        }

        // Installed before the server listens: a signal that arrives as soon as "listening" is
        // logged must find its handler (an inherited SIG_IGN would otherwise swallow it).
        let stopRequested = StopRequests(sink: sink, requestLog: requestLog)
        do {
            try group.start()
        } catch {
            LifecycleLog.write(level: "error", message: "could not start", fields: ["error": "\(error)"])
            throw ExitCode.failure
        }
        Self.announce(configuration, services, listeners: listeners, adminKey: adminKey)
        keyShown = true
        // After listening, so a large links table never delays start-up.
        DispatchQueue.global(qos: .utility).async { Self.reportRefusedStoredValues(services) }
        stopRequested.wait()
        // The listeners drain within drain_seconds; deliveries under way may take as long again,
        // and what is left goes out at the next start.
        group.stop(within: .seconds(2 * configuration.drainSeconds + 5))
        LifecycleLog.write(level: "notice", message: "stopped", fields: [:])
    }

    /// The configuration file and environment, with this command's flags over them.
    private func settings() throws -> ServerConfiguration {
        var configuration = try global.loadConfiguration()
        if let host { configuration.host = host }
        if let port { configuration.port = port }
        if let drainSeconds { configuration.drainSeconds = drainSeconds }
        configuration.limits.drainTimeout = .seconds(configuration.drainSeconds)
        return configuration
    }
}

extension Serve {
    /// One warning per stored value that today's rules would refuse (see `StoredValueAudit`).
    static func reportRefusedStoredValues(_ services: Services) {
        do {
            let findings = try StoredValueAudit.findings(app: services.app)
            for finding in findings {
                LifecycleLog.write(
                    level: "warning", message: "stored value refused by the current rules",
                    fields: [
                        "kind": finding.kind, "id": finding.id, "project": finding.projectID,
                        "field": finding.problem.key, "problem": finding.problem.message,
                    ])
            }
            if !findings.isEmpty {
                LifecycleLog.write(
                    level: "warning", message: "stored values to correct",
                    fields: [
                        "count": String(findings.count),
                        "hint": "the rows are served as stored; update them through the admin API",
                    ])
            }
        } catch {
            LifecycleLog.write(level: "warning", message: "stored value audit failed", fields: ["error": "\(error)"])
        }
    }
}

/// Lets /metrics read the server's connection count (the server is made after its responder).
final class ConnectionCount: @unchecked Sendable {
    var server: HTTPServer?
}
