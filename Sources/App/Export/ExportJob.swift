public import Dispatch
import Foundation
public import Lifecycle
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Exports each project's hours as they close (`ExportService.runDue`): a pass every minute on a
/// thread of its own at the lowest CPU priority (nice 19), so that compressing an hour of rows
/// takes only the CPU that requests leave (docs/performance.md, "Raw export").
public final class ExportJob: Service, @unchecked Sendable {
    public let serviceName = "raw export"
    private let exports: ExportService
    private let interval: Double
    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private var thread: Thread?

    public init(exports: ExportService, every interval: DispatchTimeInterval = .seconds(60)) {
        self.exports = exports
        self.interval = interval.seconds
    }

    public func start() {
        let thread = Thread { [self] in
            // On Linux the nice value is the calling thread's (who 0 is this thread, not the
            // process): this one alone yields to the request threads.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            Thread.current.name = "export-job"  // as `top -H` shows it (15 characters at most)
            let log = Logger(label: "attributiond.export")
            while !stopping.load(ordering: .acquiring) {
                _ = wake.wait(timeout: .now() + interval)
                if stopping.load(ordering: .acquiring) { break }
                let written = exports.runDue { projectID, error in
                    log.warning("export failed; the next pass resumes it", metadata: ["project": "\(projectID)", "error": "\(error)"])
                }
                for result in written {
                    log.info(
                        "exported an hour",
                        metadata: [
                            "hour": "\(result.hour.text)", "version": "\(result.version)", "rows": "\(result.rows.values.reduce(0, +))",
                        ])
                }
            }
            finished.signal()
        }
        self.thread = thread
        thread.start()
    }

    /// Waits for a pass under way until `deadline` (what it has not put, the next start resumes).
    public func stop(by deadline: DispatchTime) {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        if thread != nil { _ = finished.wait(timeout: deadline) }
    }
}

extension DispatchTimeInterval {
    fileprivate var seconds: Double {
        switch self {
        case .seconds(let value): Double(value)
        case .milliseconds(let value): Double(value) / 1e3
        case .microseconds(let value): Double(value) / 1e6
        case .nanoseconds(let value): Double(value) / 1e9
        case .never: .infinity
        @unknown default: 60
        }
    }
}
