import Synchronization

/// At most one report every `intervalSeconds`: a failure that every request meets is logged
/// often enough to be seen, never once per request.
final class ReportThrottle: Sendable {
    private let intervalNanoseconds: UInt64
    private let last = Mutex<UInt64?>(nil)

    init(intervalSeconds: Double) { intervalNanoseconds = UInt64(intervalSeconds * 1e9) }

    /// Whether a report is due now (and, if so, the next one waits the interval).
    func due(now: UInt64) -> Bool {
        last.withLock { last in
            if let previous = last, now &- previous < intervalNanoseconds { return false }
            last = now
            return true
        }
    }
}
