import API
@preconcurrency import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What ends `serve`: the first SIGTERM or SIGINT (a second one exits at once). SIGHUP reopens
/// the log file after logrotate moved it away.
final class StopRequests: @unchecked Sendable {
    private let stopped = DispatchSemaphore(value: 0)
    private var signals: SignalHandling?
    private let hangup: any DispatchSourceSignal

    init(sink: LogSink, requestLog: RequestLog?) {
        signal(SIGHUP, SIG_IGN)
        hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
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
        signals = SignalHandling { [stopped] signal in
            LifecycleLog.write(level: "notice", message: "draining", fields: ["signal": signal])
            stopped.signal()
        }
    }

    /// Returns once a stop was asked for.
    func wait() {
        stopped.wait()
        hangup.cancel()
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
