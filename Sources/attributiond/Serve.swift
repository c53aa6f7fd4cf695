import API
import ArgumentParser
@preconcurrency import Dispatch
import HTTP
#if canImport(Glibc)
import Glibc
#endif

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server in the foreground (the default command).")

    @Option(help: "Address to listen on (0.0.0.0 for all IPv4, :: for IPv4 and IPv6).")
    var host = "0.0.0.0"

    @Option(help: "Port to listen on (0 picks a free one).")
    var port: UInt16 = 8080

    @Option(name: .customLong("drain-seconds"), help: "On SIGTERM/SIGINT, how long in-flight requests may take.")
    var drainSeconds: Int = 10

    func validate() throws {
        guard (0...3600).contains(drainSeconds) else {
            throw ValidationError("--drain-seconds must be between 0 and 3600")
        }
    }

    func run() throws {
        var limits = HTTPServerLimits()
        limits.drainTimeout = .seconds(drainSeconds)
        let server = HTTPServer(host: host, port: port, limits: limits, responder: Application.makeRouter())
        let stopped = DispatchSemaphore(value: 0)
        // Installed before the server listens: a signal that arrives as soon as "listening" is
        // logged must find its handler (an inherited SIG_IGN would otherwise swallow it).
        let signals = SignalHandling { signal in
            LifecycleLog.write(level: "info", message: "draining", fields: ["signal": signal])
            server.shutdown { stopped.signal() }
        }
        do {
            try server.start()
        } catch {
            LifecycleLog.write(level: "error", message: "could not start", fields: ["error": "\(error)"])
            throw ExitCode.failure
        }
        LifecycleLog.write(level: "info", message: "listening",
                           fields: ["address": server.boundAddress.map { "\($0)" } ?? "\(host):\(port)"])
        stopped.wait()
        withExtendedLifetime(signals) {}
        LifecycleLog.write(level: "info", message: "stopped", fields: [:])
    }
}

/// SIGTERM and SIGINT start a graceful shutdown; a second one exits at once.
final class SignalHandling {
    private let sources: [any DispatchSourceSignal]

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
