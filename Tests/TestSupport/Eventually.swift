import Dispatch
import Foundation

/// Whether `condition` holds within `timeout` seconds, checked at once and then every few
/// milliseconds. The one place tests wait on time for something another thread or process does:
/// a test waits for the condition it is about, never for a fixed time.
public func eventually(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    let pause = DispatchSemaphore(value: 0)
    var interval = 0.002
    while true {
        if try condition() { return true }
        guard Date() < deadline else { return false }
        // Never signalled: a bounded pause that grows to 50 ms, so quick conditions are seen
        // quickly and slow ones are not polled hard.
        _ = pause.wait(timeout: .now() + interval)
        interval = min(interval * 2, 0.05)
    }
}
