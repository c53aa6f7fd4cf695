import Attribution
import API
import Foundation
import HTTP

/// One JSON line on stderr per life-cycle event (structured request logging comes with operations).
enum LifecycleLog {
    /// The log file, once `serve` has set up logging: lines go there as well as to stderr.
    nonisolated(unsafe) static var sink: LogSink?

    static func write(level: String, message: String, fields: [String: String]) {
        var record = fields
        record["level"] = level
        record["msg"] = message
        record["time"] = SystemClock().now().iso8601
        // The server's one JSON writer (sorted keys, compact), as request-log lines are written.
        let line = String(decoding: JSONValue.object(record.mapValues(JSONValue.string)).serialized(), as: UTF8.self)
        // Life-cycle lines are rare and wanted on the console (or journal) even with a log file.
        FileHandleOutput.standardError(line)
        if let sink, sink.path != nil { sink.write(Array((line + "\n").utf8)) }
    }
}
