import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `Date` header value (IMF-fixdate, RFC 9110 §5.6.7), formatted once per second and shared by
/// every connection.
public final class HTTPDateCache: Sendable {
    public static let shared = HTTPDateCache()

    private struct Entry {
        var second: Int
        var line: [UInt8]
    }

    private let entry = Mutex(Entry(second: -1, line: []))

    public init() {}

    /// `Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n` for the current second.
    public func headerLine() -> [UInt8] {
        // The one wall-clock read outside `Clock`: the Date header is the server's real time
        // (RFC 9110 §6.6.1) even for a test-mode project, and this layer knows nothing of projects.
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let second = now.tv_sec
        return entry.withLock { entry in
            if entry.second != second {
                entry.second = second
                entry.line = Array("Date: \(Self.format(epochSeconds: second))\r\n".utf8)
            }
            return entry.line
        }
    }

    static func format(epochSeconds: Int) -> String {
        var time = time_t(epochSeconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func pad(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(pad(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(pad(parts.tm_hour)):\(pad(parts.tm_min)):\(pad(parts.tm_sec)) GMT"
    }
}
