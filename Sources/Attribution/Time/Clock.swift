public import Foundation

/// Milliseconds since the Unix epoch, UTC: how every time is stored and compared.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// The instants a client may name: years 0000 to 9999, what ISO 8601 text can spell. A time
    /// read from input outside it is refused, so that arithmetic on stored times (windows, day
    /// boundaries, rounding) can never overflow.
    public static let plausibleMilliseconds: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// A time read from input, or nil beyond `plausibleMilliseconds`.
    public init?(plausibleMilliseconds milliseconds: Int64) {
        guard Self.plausibleMilliseconds.contains(milliseconds) else { return nil }
        self.milliseconds = milliseconds
    }

    /// Seconds since 1970 read from input, or nil beyond `plausibleMilliseconds`.
    public init?(plausibleSeconds seconds: Int64) {
        let (milliseconds, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return nil }
        self.init(plausibleMilliseconds: milliseconds)
    }

    public init(_ date: Date) { milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public func adding(seconds: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds + seconds * 1000) }

    /// The start of the UTC hour or day (`unit` in milliseconds) this instant falls in, before 1970 too.
    public func roundedDown(toMultipleOf unit: Int64) -> Timestamp { Timestamp(milliseconds: Self.floorDiv(milliseconds, unit) * unit) }

    /// The first multiple of `unit` at or after this instant.
    public func roundedUp(toMultipleOf unit: Int64) -> Timestamp { Timestamp(milliseconds: -Self.floorDiv(-milliseconds, unit) * unit) }

    /// `value / divisor` rounded towards minus infinity (Swift's `/` rounds towards zero).
    public static func floorDiv(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// `value / divisor` rounded towards plus infinity.
    public static func ceilDiv(_ value: Int64, _ divisor: Int64) -> Int64 { -floorDiv(-value, divisor) }

    public var description: String { "\(milliseconds)ms" }
}

/// Where the domain gets "now". Nothing in the domain reads the wall clock directly, so tests (and
/// per-project test clocks) can place events at exact times.
public protocol Clock: Sendable {
    func now() -> Timestamp
}

public struct SystemClock: Clock {
    public init() {}
    public func now() -> Timestamp { Timestamp(Date()) }
}
