internal import CEventPoll
import Glibc
import Synchronization

/// The server's event loops, one per core by default; new connections are dealt round-robin.
final class EventLoopGroup: Sendable {
    private let loops: [EventLoop]
    private let nextIndex = Atomic<Int>(0)

    init(count: Int, tickInterval: Duration) throws(SocketError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, count) {
            loops.append(try EventLoop(name: "http-loop-\(index)", tickInterval: tickInterval))
        }
        self.loops = loops
    }

    func next() -> EventLoop {
        loops[nextIndex.add(1, ordering: .relaxed).oldValue % loops.count]
    }

    func stop() {
        for loop in loops { loop.stop() }
    }

    /// Cores this process may run on (its CPU affinity, which containers restrict).
    static var availableCores: Int {
        let count = Int(cevent_available_cpus())
        return count > 0 ? count : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
