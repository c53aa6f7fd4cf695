public import Attribution
import Foundation

/// When the attempts after a failed one happen (outbound.md): at once, then 5 s, 5 min, 30 min,
/// 2 h, 5 h, 10 h, 10 h, then failed; each wait stretched by up to 10 % of jitter so that a
/// receiver that comes back is not hit by every queued job in the same second. A `Retry-After`
/// the receiver sent replaces the wait (capped at a day).
public struct DeliverySchedule: Sendable {
    /// Seconds to wait after attempt n (1-based) failed; its length is the number of retries.
    public var waits: [Double]
    public var jitter: Double

    public static let standard = DeliverySchedule(waits: [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000], jitter: 0.1)

    public init(waits: [Double], jitter: Double) {
        self.waits = waits
        self.jitter = jitter
    }

    /// The time of the next attempt after `attempts` failed ones, or nil when none is left.
    public func nextAttempt(
        afterAttempts attempts: Int, now: Timestamp, retryAfterSeconds: Double?,
        random: Double = Double.random(in: 0...1)
    ) -> Timestamp? {
        guard attempts >= 1, attempts <= waits.count else { return nil }
        let wait = retryAfterSeconds.map { min(max($0, 0), 86_400) } ?? waits[attempts - 1] * (1 + jitter * random)
        return Timestamp(milliseconds: now.milliseconds + Int64(wait * 1000))
    }

    /// `Retry-After` as seconds: a number, or an HTTP date.
    public static func retryAfterSeconds(_ value: String?, now: Timestamp) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Double(value), seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince1970 - Double(now.milliseconds) / 1000)
    }
}
