import API
import App
import ArgumentParser
import Attribution
import Configuration
import CurlTransport
import Foundation
import GeoIP
import HTTP
import Lifecycle
import Logging
import Store
import StoreContracts

/// The parts `serve` composes, each made from the configuration.
extension Serve {
    static func openLog(_ configuration: ServerConfiguration) throws -> LogSink {
        do {
            return try LogSink(path: configuration.logFile)
        } catch {
            FileHandleOutput.standardError("configuration: log_file: cannot open \(configuration.logFile ?? "") for appending")
            throw ExitCode(2)
        }
    }

    static func adminKey(_ configuration: ServerConfiguration, _ store: any StoreBackend) throws -> (hash: [UInt8]?, origin: ServerAdminKey.Origin) {
        do {
            return try ServerAdminKey.resolve(configured: configuration.adminKey, store: store, now: SystemClock().now())
        } catch {
            LifecycleLog.write(level: "error", message: "cannot read or keep the admin key", fields: ["error": "\(error)"])
            throw ExitCode.failure
        }
    }

    /// The geo database the configuration names, opened once; a file that cannot be read stops
    /// the start (a server that silently routes no one by country would be worse).
    static func countries(_ configuration: ServerConfiguration) throws -> TapCountries {
        guard let path = configuration.geoipDatabase else { return TapCountries(header: configuration.countryHeader) }
        do {
            let database = try MaxMindCountries(path: path)
            LifecycleLog.write(level: "info", message: "geo database opened", fields: ["path": path, "type": database.databaseType])
            return TapCountries(database: database, header: configuration.countryHeader)
        } catch {
            LifecycleLog.write(level: "error", message: "cannot open the geo database", fields: ["error": error.description])
            throw ExitCode.failure
        }
    }

    /// The address lists the configuration names, read once; a list that cannot be read stops
    /// the start, as the geo database does.
    static func addressLists(_ configuration: ServerConfiguration) throws -> AddressLists {
        // With the daily refresh on, a list not fetched yet is fetched before the start.
        if configuration.privateRelayRefresh, let path = configuration.privateRelayList, !FileManager.default.fileExists(atPath: path) {
            do {
                let prefixes = try PrivateRelayList.update(url: configuration.privateRelayURL, path: path)
                LifecycleLog.write(level: "info", message: "private relay list fetched", fields: ["prefixes": String(prefixes), "path": path])
            } catch {
                LifecycleLog.write(level: "error", message: "cannot fetch the private relay list", fields: ["error": "\(error)"])
                throw ExitCode.failure
            }
        }
        do {
            let (ranges, summary) = try AddressListFile.load(
                privateRelay: configuration.privateRelayList,
                lists: configuration.ipLists.map { (AddressClass(rawValue: $0.addressClass), $0.path) })
            if !summary.isEmpty {
                LifecycleLog.write(
                    level: "info", message: "address lists loaded",
                    fields: summary.mapValues { String($0) }.merging(["ranges": String(ranges.rangeCount)]) { own, _ in own })
            }
            var database: MaxMindAnonymousIP?
            if let path = configuration.anonymousIPDatabase {
                let opened = try MaxMindAnonymousIP(path: path)
                LifecycleLog.write(level: "info", message: "anonymous-IP database opened", fields: ["path": path, "type": opened.databaseType])
                database = opened
            }
            return AddressLists(ranges, hasRelayList: configuration.privateRelayList != nil, database: database)
        } catch {
            LifecycleLog.write(level: "error", message: "cannot read an address list", fields: ["error": "\(error)"])
            throw ExitCode.failure
        }
    }

    static func services(
        _ configuration: ServerConfiguration, _ store: any StoreBackend,
        adminKey: (hash: [UInt8]?, origin: ServerAdminKey.Origin), countries: TapCountries, addressLists: AddressLists
    ) -> Services {
        Services(
            store: store, adminKey: configuration.adminKey, adminKeyHash: adminKey,
            metricsToken: configuration.metricsToken,
            trustedProxies: configuration.trustedProxies, publicURL: configuration.publicURL,
            allowedHosts: configuration.allowedHosts,
            defaultProject: configuration.defaultProject,
            outboundPolicy: OutboundAddressPolicy(allowPrivateAddresses: configuration.outbound.allowPrivateAddresses),
            appleAds: configuration.appleAds, adPlatforms: configuration.adPlatforms, revenue: configuration.revenue,
            dashboard: configuration.dashboard,
            countries: countries, addressLists: addressLists,
            exportScratch: configuration.export.scratchDirectory ?? ExportService.defaultScratch
        ) { error, request in
            LifecycleLog.write(level: "error", message: "internal error", fields: ["request": request, "error": "\(error)"])
        }
    }

    /// The raw export's uploads: a transport of their own, as a 16 MiB part takes longer than a
    /// webhook may; under the outbound policy, as a bucket's endpoint is a tenant's choice.
    static func exportTransport(_ configuration: ServerConfiguration, _ services: Services) -> CurlTransport {
        let transport = CurlTransport(totalTimeout: 600, policy: services.app.outboundPolicy)
        services.app.exports.use(transport, partSizeMiB: configuration.export.partSizeMiB)
        return transport
    }

    /// Projects the configuration file declares, made or brought up to date.
    static func reconcileDeclaredProjects(_ configuration: ServerConfiguration, _ services: Services) throws {
        do {
            for line in try DeclaredProjects.reconcile(configuration.projects, services: services) {
                LifecycleLog.write(level: "info", message: line, fields: [:])
            }
        } catch let problem as DeclaredProjects.Problem {
            FileHandleOutput.standardError("configuration: \(problem)")
            throw ExitCode(2)
        }
    }

    struct Listeners {
        let http: HTTPServer
        /// HTTPS beside HTTP, with the same application, limits and timeouts.
        let https: HTTPServer?
        var group: ConcurrentServices { ConcurrentServices("listeners", [http] + (https.map { [$0] } ?? [])) }
    }

    /// Certificates for project domains from the configured ACME CA, served by name on the HTTPS
    /// listener; nil without `acme`.
    static func certificates(_ configuration: ServerConfiguration, _ services: Services) -> (CertificateService, ServerCertificates, CurlTransport)? {
        guard let settings = configuration.acme else { return nil }
        let names = ServerCertificates()
        // The CA is the operator's choice: no private-address policy. The reachability probe goes
        // to a name a tenant chose: under the outbound policy, like webhooks.
        let transport = CurlTransport(connectTimeout: 10, totalTimeout: 30, allowPrivateAddresses: true, trustedRoots: configuration.acmeTrustedRoots)
        let probe = CurlTransport(totalTimeout: 30, policy: services.app.outboundPolicy)
        let service = CertificateService(
            settings: settings, store: services.app.store, clock: services.app.clock, transport: transport, probeTransport: probe,
            logger: Logger(label: "attributiond.certificates")
        ) { domain, chain, key in
            do {
                names.set(try TLSContext(chainPEM: chain, keyPEM: key), for: domain)
            } catch {
                LifecycleLog.write(level: "error", message: "certificate not served", fields: ["domain": domain, "error": "\(error)"])
            }
        }
        // A domain added (anywhere), or a certificate another node got: look at once.
        services.app.store.observeCommits(changing: [.domains, .certificates]) { _ in service.wake() }
        return (service, names, transport)
    }

    static func listeners(
        _ configuration: ServerConfiguration, _ services: Services, requestLog: RequestLog?, serverNames: ServerCertificates? = nil
    ) throws -> Listeners {
        let connections = ConnectionCount()
        let refused: @Sendable (String) -> Void = { problem in
            LifecycleLog.write(level: "error", message: "response refused", fields: ["problem": problem])
        }
        let http = HTTPServer(
            host: configuration.host, port: configuration.port, limits: configuration.limits,
            onRefusedResponse: refused,
            responder: Application.makeResponder(
                services: services,
                rateLimit: configuration.rateLimit.map { RateLimitSettings(ratePerSecond: $0.perSecond, burst: $0.burst) },
                log: requestLog, openConnections: { connections.server?.openConnectionCount ?? 0 }))
        connections.server = http
        // With acme and no tls, HTTPS listens on 8443 with the domains' certificates only.
        guard let tls = configuration.tls ?? (serverNames == nil ? nil : (nil, nil, 8443)) else { return Listeners(http: http, https: nil) }
        do {
            let context: TLSContext
            if let cert = tls.cert, let key = tls.key {
                context = try TLSContext(certificatePath: cert, privateKeyPath: key, serverNames: serverNames)
            } else {
                context = try TLSContext(serverNames: serverNames ?? ServerCertificates())
            }
            return Listeners(
                http: http,
                https: HTTPServer(
                    host: configuration.host, port: tls.port, limits: configuration.limits, tls: context,
                    onRefusedResponse: refused, responder: http.responder))
        } catch {
            FileHandleOutput.standardError("configuration: \(error)")
            throw ExitCode(2)
        }
    }

    /// The webhook and postback worker and its transport: jobs left by the last run (or by
    /// another process) go out once it starts.
    static func outbox(_ configuration: ServerConfiguration, _ services: Services) -> (OutboxWorker, CurlTransport) {
        var settings = OutboxWorker.Settings()
        settings.userAgent = "attributiond/\(Version.number)"
        settings.deliveredRetentionHours = configuration.outbound.deliveredRetentionHours
        // A lease outlives the longest attempt, so only a dead worker's jobs are taken again.
        settings.leaseSeconds = Int64(configuration.outbound.requestTimeoutSeconds) + 5
        settings.onFinalFailure = { job, attempts, error in
            LifecycleLog.write(
                level: "warning", message: "delivery failed",
                fields: [
                    "delivery": job.id, "kind": job.kind, "event_type": job.eventType, "project": job.projectID,
                    "host": URLComponents(string: job.targetURL)?.host ?? "", "attempts": String(attempts), "error": error,
                ])
        }
        let transport = CurlTransport(totalTimeout: Double(configuration.outbound.requestTimeoutSeconds), policy: services.app.outboundPolicy)
        return (services.app.makeOutboxWorker(transport: transport, settings: settings), transport)
    }

    /// Click retention, unless `click_retention_hours` is 0.
    static func retention(_ configuration: ServerConfiguration, store: any StoreBackend, services: Services) -> RetentionJob? {
        guard configuration.clickRetentionHours != 0 else { return nil }
        return RetentionJob(
            retention: store.clickRetention, hours: configuration.clickRetentionHours, clock: services.clock,
            testProjectTimes: { [clocks = services.app.clocks] in clocks.testProjectTimes() }
        ) { deleted, cutoff in
            LifecycleLog.write(level: "info", message: "retention", fields: ["deleted_clicks": String(deleted), "before": cutoff.iso8601])
        }
    }

    /// The "listening" line, and on a first start the admin key made for this server.
    static func announce(
        _ configuration: ServerConfiguration, _ services: Services, listeners: Listeners,
        adminKey: (hash: [UInt8]?, origin: ServerAdminKey.Origin)
    ) {
        let server = listeners.http
        services.publicHosts.listening(on: configuration.host, port: server.port)
        LifecycleLog.write(
            level: "notice", message: "listening",
            fields: [
                "address": server.boundAddress.map { "\($0)" } ?? "\(configuration.host):\(configuration.port)",
                "db": configuration.postgresURL.map(GlobalOptions.redacted) ?? configuration.db,
                "admin_api": adminKey.hash == nil ? "off" : "on",
                "https": listeners.https?.boundAddress.map { "\($0)" } ?? "off",
            ])
        guard case .madeNow(let key) = adminKey.origin else { return }
        let host = ["0.0.0.0", "::", ""].contains(configuration.host) ? "127.0.0.1" : configuration.host
        let place =
            configuration.dashboard.enabled
            ? "sign in at http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)\(configuration.dashboard.prefix)"
            : "use it as Authorization: Bearer <key> on /admin/v1"
        FileHandleOutput.standardError(
            """
            attributiond: first start, so an admin key was made for this server (shown only now; kept hashed):

                \(key)

            Keep it in a password manager, then \(place). Set ATTRIBUTIOND_ADMIN_KEY to use a key of your own instead.
            """)
        LifecycleLog.write(level: "warning", message: "admin key made on first start and printed once above", fields: [:])
    }
}
