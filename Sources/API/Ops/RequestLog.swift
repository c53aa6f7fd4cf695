import Attribution
import Dispatch
import Foundation
import HTTP
import Store

/// One JSON line per request on stderr: time, method, route pattern, status, duration in µs,
/// response bytes, and the client IP — or a hash of it when `log_ip` is false. Lines are buffered
/// and written by a background queue every 100 ms (or at 64 KiB), not with a syscall per request.
public final class RequestLog: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer: [UInt8] = []  // guarded by `lock`
    private let queue = DispatchQueue(label: "attributiond.log", qos: .utility)
    private let timer: any DispatchSourceTimer
    private let logIP: Bool
    private let write: @Sendable ([UInt8]) -> Void

    public convenience init(logIP: Bool, sink: LogSink) {
        self.init(logIP: logIP) { bytes in sink.write(bytes) }
    }

    init(logIP: Bool, write: @escaping @Sendable ([UInt8]) -> Void) {
        self.logIP = logIP
        self.write = write
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100), leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in self?.flush() }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// The current second as ISO 8601, formatted once per second.
    private var second: (epoch: Int, text: [UInt8]) = (-1, [])  // guarded by `lock`

    private func timeText() -> [UInt8] {
        let now = Int(SystemClock().now().milliseconds / 1000)
        lock.lock()
        defer { lock.unlock() }
        if second.epoch != now { second = (now, Array(Timestamp(milliseconds: Int64(now) * 1000).iso8601.utf8)) }
        return second.text
    }

    func record(method: String, route: String, status: Int, microseconds: Int, bytes: Int, ip: String?) {
        // Appended piece by piece into one buffer: this runs for every request.
        var line: [UInt8] = []
        line.reserveCapacity(192)
        line.append(contentsOf: #"{"time":""#.utf8)
        line.append(contentsOf: timeText())
        line.append(contentsOf: #"","level":"info","msg":"request","method":"#.utf8)
        ByteText.appendJSONString(method, to: &line)
        line.append(contentsOf: #","route":"#.utf8)
        ByteText.appendJSONString(route, to: &line)
        line.append(contentsOf: #","status":"#.utf8)
        ByteText.appendDecimal(status, to: &line)
        line.append(contentsOf: #","duration_us":"#.utf8)
        ByteText.appendDecimal(microseconds, to: &line)
        line.append(contentsOf: #","bytes":"#.utf8)
        ByteText.appendDecimal(bytes, to: &line)
        if let ip {
            if logIP {
                line.append(contentsOf: #","ip":"#.utf8)
                ByteText.appendJSONString(ip, to: &line)
            } else {
                line.append(contentsOf: #","ip_hash":""#.utf8)
                line.append(contentsOf: Secrets.sha256Hex(ip).prefix(16).utf8)
                line.append(UInt8(ascii: "\""))
            }
        }
        line.append(contentsOf: "}\n".utf8)
        lock.lock()
        buffer.append(contentsOf: line)
        let full = buffer.count >= 64 * 1024
        lock.unlock()
        if full { queue.async { self.flush() } }
    }

    /// Writes out what is buffered (also on shutdown).
    public func flush() {
        lock.lock()
        let bytes = buffer
        buffer.removeAll(keepingCapacity: true)
        lock.unlock()
        if !bytes.isEmpty { write(bytes) }
    }
}
