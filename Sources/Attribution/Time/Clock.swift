public import Foundation

/// Milliseconds since the Unix epoch, UTC: how every time is stored and compared.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public init(_ date: Date) { milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }

    public func adding(seconds: Int64) -> Timestamp { Timestamp(milliseconds: milliseconds + seconds * 1000) }

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
