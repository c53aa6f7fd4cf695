import Attribution
import Cryptography
import Dispatch
import Foundation
import HTTP
import StoreContracts

/// One JSON line per request on stderr: time, method, route pattern, status, duration in µs,
/// response bytes, and the client IP — or a hash of it when `log_ip` is false. Lines are buffered
/// and written by a background queue every 100 ms (or at 64 KiB), not with a syscall per request.
///
/// Two buffers take turns, so a flush neither copies the lines nor allocates: a buffer shared
/// with its copy would be reallocated by `removeAll(keepingCapacity:)`, and at this size every
/// allocation is a fresh `mmap` whose `munmap` interrupts the other core (2,600 a second under
/// clicks, before). Lines beyond `maximumPending` (a sink that cannot keep up) are dropped and
/// counted, never held without bound.
public final class RequestLog: @unchecked Sendable {
    /// Buffered bytes that start a flush before the timer's.
    let flushThreshold: Int
    /// Buffered bytes beyond which lines are dropped.
    let maximumPending: Int
    /// A buffer grown past this by a burst is given back after its flush.
    static let keptCapacity = 1 << 20

    private let lock = NSLock()
    private var buffer: [UInt8] = []  // guarded by `lock`
    private var dropped = 0  // guarded by `lock`
    private var flushScheduled = false  // guarded by `lock`
    /// Held for a whole flush: the timer, a full buffer and shutdown may all ask for one.
    private let flushLock = NSLock()
    private var spare: [UInt8] = []  // guarded by `flushLock`
    private let queue = DispatchQueue(label: "attributiond.log", qos: .utility)
    private let timer: any DispatchSourceTimer
    private let logIP: Bool
    private let write: @Sendable ([UInt8]) -> Void

    public convenience init(logIP: Bool, sink: LogSink) {
        self.init(logIP: logIP) { bytes in sink.write(bytes) }
    }

    init(logIP: Bool, flushThreshold: Int = 64 << 10, maximumPending: Int = 8 << 20, write: @escaping @Sendable ([UInt8]) -> Void) {
        self.logIP = logIP
        self.flushThreshold = flushThreshold
        self.maximumPending = maximumPending
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
        guard buffer.count + line.count <= maximumPending else {
            dropped += 1
            lock.unlock()
            return
        }
        buffer.append(contentsOf: line)
        let scheduleFlush = buffer.count >= flushThreshold && !flushScheduled
        if scheduleFlush { flushScheduled = true }
        lock.unlock()
        if scheduleFlush { queue.async { self.flush() } }
    }

    /// Writes out what is buffered (also on shutdown).
    public func flush() {
        flushLock.lock()
        defer { flushLock.unlock() }
        lock.lock()
        swap(&buffer, &spare)
        let droppedLines = dropped
        dropped = 0
        flushScheduled = false
        lock.unlock()
        if droppedLines > 0 {
            spare.append(contentsOf: #"{"time":""#.utf8)
            spare.append(contentsOf: timeText())
            spare.append(contentsOf: #"","level":"warning","msg":"request log lines dropped: the log could not keep up","count":"#.utf8)
            ByteText.appendDecimal(droppedLines, to: &spare)
            spare.append(contentsOf: "}\n".utf8)
        }
        if !spare.isEmpty { write(spare) }
        spare.removeAll(keepingCapacity: spare.capacity <= Self.keptCapacity)
    }
}
