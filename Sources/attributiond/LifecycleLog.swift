import API
import Attribution
import Foundation
import HTTP
import Logging

/// The server's log lines: one JSON object per line on stderr (and in `log_file` when set), each
/// with `time`, `level`, `msg` and its fields. Lines below `log_level` are not written, whoever
/// writes them: this file's callers and every module's `Logger` (`ServerLogHandler`).
enum LifecycleLog {
    /// The log file, once `serve` has set up logging: lines go there as well as to stderr.
    nonisolated(unsafe) static var sink: LogSink?
    /// Lines below this level are dropped (`log_level`; set once at start, before threads log).
    nonisolated(unsafe) static var minimumLevel: Logger.Level = .info

    static func write(level: String, message: String, fields: [String: String]) {
        if let parsed = Logger.Level(rawValue: level), parsed < minimumLevel { return }
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

/// Where every module's `Logger` writes: `LifecycleLog`'s lines, with the logger's label as
/// `component` and its metadata as fields. Bootstrapped once by `serve`.
struct ServerLogHandler: LogHandler {
    let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = ["component": label]
        for (key, value) in metadata { fields[key] = "\(value)" }
        for (key, value) in event.metadata ?? [:] { fields[key] = "\(value)" }
        if let error = event.error { fields["error"] = "\(error)" }
        LifecycleLog.write(level: event.level.rawValue, message: "\(event.message)", fields: fields)
    }

    /// Every `Logger` made from now on writes here, at `log_level` and above.
    static func bootstrap(level: Logger.Level) {
        LifecycleLog.minimumLevel = level
        LoggingSystem.bootstrap { label in ServerLogHandler(label: label, logLevel: level) }
    }
}
