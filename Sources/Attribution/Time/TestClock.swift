import Synchronization

/// A clock that stands still until it is moved, and only ever moves forward (as Stripe's test
/// clocks do). Test-mode projects each have one, and so do the tests: the engine cannot tell it
/// from the system clock, which is the point.
public final class TestClock: Clock {
    private let current: Mutex<Int64>

    public init(_ start: Timestamp) { current = Mutex(start.milliseconds) }

    public func now() -> Timestamp { Timestamp(milliseconds: current.withLock { $0 }) }

    /// Moves to `time`; false (and no change) when that is in this clock's past.
    @discardableResult
    public func move(to time: Timestamp) -> Bool {
        current.withLock { now in
            guard time.milliseconds >= now else { return false }
            now = time.milliseconds
            return true
        }
    }
}
