import Foundation

/// One JSON line on stderr per life-cycle event (structured request logging comes with operations).
enum LifecycleLog {
    static func write(level: String, message: String, fields: [String: String]) {
        var record = fields
        record["level"] = level
        record["msg"] = message
        record["time"] = ISO8601DateFormatter().string(from: Date())
        guard let data = try? JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]),
              let line = String(data: data, encoding: .utf8) else { return }
        FileHandleOutput.standardError(line)
    }
}
