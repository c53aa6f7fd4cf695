public import Dispatch
public import Lifecycle
import Logging

/// Exports each project's hours as they close (`ExportService.runDue`): a pass every minute, on
/// a queue of its own (never an event loop).
public final class ExportJob: Service, @unchecked Sendable {
    public let serviceName = "raw export"
    private let timer: any DispatchSourceTimer
    private let interval: DispatchTimeInterval

    public init(exports: ExportService, every interval: DispatchTimeInterval = .seconds(60)) {
        self.interval = interval
        let log = Logger(label: "attributiond.export")
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "attributiond.export", qos: .utility))
        // Resumed now and scheduled by `start`: a source released while suspended traps.
        timer.schedule(deadline: .distantFuture)
        timer.setEventHandler {
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
        timer.resume()
    }

    public func start() { timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .seconds(1)) }

    public func stop(by deadline: DispatchTime) { timer.cancel() }
}
