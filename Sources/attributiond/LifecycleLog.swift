import Attribution
import API
import Foundation

/// One JSON line on stderr per life-cycle event (structured request logging comes with operations).
enum LifecycleLog {
    /// The log file, once `serve` has set up logging: lines go there as well as to stderr.
    nonisolated(unsafe) static var sink: LogSink?

    static func write(level: String, message: String, fields: [String: String]) {
        var record = fields
        record["level"] = level
        record["msg"] = message
        record["time"] = SystemClock().now().iso8601
        guard let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]),
              let line = String(data: data, encoding: .utf8) else { return }
        // Life-cycle lines are rare and wanted on the console (or journal) even with a log file.
        FileHandleOutput.standardError(line)
        if let sink, sink.path != nil { sink.write(Array((line + "\n").utf8)) }
    }
}
