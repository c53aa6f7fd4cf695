internal import CEventPoll
import Glibc
import Synchronization

/// What a loop drives: told when its descriptor is ready, and on every tick to check deadlines.
/// Called only on the loop's thread.
protocol EventLoopHandler: AnyObject {
    func ready(_ events: EventLoop.Readiness)
    func tick(now: UInt64)
}

/// One thread waiting in `epoll_wait` on the descriptors registered with it, running their
/// handlers itself, and running tasks other threads hand it (a handler's answer, a shutdown)
/// after an `eventfd` wake-up. A connection stays on one loop for its life, so its state needs no
/// lock, and a request is read, routed and, for quick handlers, answered without a thread switch:
/// Dispatch sources cost one wake-up per readable event, plus one more per hand-off.
final class EventLoop: @unchecked Sendable {
    struct Readiness {
        let readable: Bool
        let writable: Bool
        /// The peer reset the connection, or both directions are shut: nothing more can be done.
        let closed: Bool
    }

    struct Interest: Equatable {
        var read: Bool
        var write: Bool

        var bits: UInt32 {
            (read ? UInt32(CEVENT_READABLE) : 0) | (write ? UInt32(CEVENT_WRITABLE) : 0)
        }
    }

    private let epollFD: Int32
    private let wakeFD: Int32
    private let tickNanoseconds: UInt64
    private let tasks = Mutex<[@Sendable () -> Void]>([])
    /// Set once a wake-up is written and not yet consumed, so a burst of tasks costs one write.
    private let wakePending = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    private let threadID = Atomic<UInt>(0)

    // Touched only on the loop's thread.
    private var handlers: [Int32: any EventLoopHandler] = [:]
    /// One read buffer for all the loop's connections: a read is consumed before the next starts.
    let readBuffer: UnsafeMutableRawBufferPointer

    init(name: String, tickInterval: Duration) throws(SocketError) {
        epollFD = cevent_create()
        guard epollFD >= 0 else { throw SocketError("epoll_create1") }
        wakeFD = cevent_eventfd()
        guard wakeFD >= 0 else {
            let code = errno
            Glibc.close(epollFD)
            throw SocketError("eventfd", code: code)
        }
        tickNanoseconds = max(1_000_000, tickInterval.nanoseconds)
        readBuffer = .allocate(byteCount: 16 * 1024, alignment: 8)
        _ = cevent_watch(epollFD, wakeFD, UInt32(CEVENT_READABLE), 1)
        startThread(name: name)
    }

    deinit {
        readBuffer.deallocate()
        Glibc.close(wakeFD)
        Glibc.close(epollFD)
    }

    var inLoop: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Runs `task` on the loop's thread, after the events it is handling now.
    func execute(_ task: @escaping @Sendable () -> Void) {
        tasks.withLock { $0.append(task) }
        if !wakePending.exchange(true, ordering: .acquiringAndReleasing) {
            var one: UInt64 = 1
            _ = Glibc.write(wakeFD, &one, 8)
        }
    }

    /// Ends the thread once it has run the tasks already queued. Descriptors still registered are
    /// the caller's to close.
    func stop() {
        stopping.store(true, ordering: .releasing)
        execute {}
    }

    // MARK: - Registration (loop thread only)

    func register(_ fd: Int32, handler: any EventLoopHandler, interest: Interest) -> Bool {
        guard cevent_watch(epollFD, fd, interest.bits, 1) == 0 else { return false }
        handlers[fd] = handler
        return true
    }

    func update(_ fd: Int32, interest: Interest) {
        _ = cevent_watch(epollFD, fd, interest.bits, 0)
    }

    /// Before the descriptor is closed, so a number the kernel reuses never reaches the old handler.
    func deregister(_ fd: Int32) {
        _ = cevent_unwatch(epollFD, fd)
        handlers[fd] = nil
    }

    // MARK: - The loop

    private func startThread(name: String) {
        let context = Unmanaged.passRetained(ThreadStart(loop: self, name: name)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { argument in
                let start = Unmanaged<ThreadStart>.fromOpaque(argument!).takeRetainedValue()
                cevent_set_thread_name(start.name)
                cevent_mark_loop_thread()
                start.loop.run()
                return nil
            }, context)
        precondition(status == 0, "could not start an event loop thread: \(status)")
        pthread_detach(thread)
    }

    private final class ThreadStart {
        let loop: EventLoop
        let name: String
        init(loop: EventLoop, name: String) {
            self.loop = loop
            self.name = name
        }
    }

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        let capacity: Int32 = 256
        let events = UnsafeMutablePointer<cevent_ready>.allocate(capacity: Int(capacity))
        defer { events.deallocate() }
        var nextTick = Self.now() + tickNanoseconds
        while true {
            let now = Self.now()
            let timeout = nextTick > now ? Int32(min(1000, (nextTick - now + 999_999) / 1_000_000)) : 0
            let count = cevent_wait(epollFD, events, capacity, timeout)
            if count < 0, errno != EINTR { fatalError("epoll_wait failed: \(errno)") }
            for index in 0..<Int(max(0, count)) {
                let event = events[index]
                let fd = event.fd
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeFD, &value, 8)
                    continue
                }
                // Gone when an earlier event of this batch closed it.
                guard let handler = handlers[fd] else { continue }
                let flags = event.events
                handler.ready(
                    Readiness(
                        readable: flags & UInt32(CEVENT_READABLE) != 0,
                        writable: flags & UInt32(CEVENT_WRITABLE) != 0,
                        closed: flags & UInt32(CEVENT_CLOSED) != 0))
            }
            runTasks()
            let after = Self.now()
            if after >= nextTick {
                for handler in Array(handlers.values) { handler.tick(now: after) }
                nextTick = after + tickNanoseconds
            }
            if stopping.load(ordering: .acquiring) {
                runTasks()
                handlers = [:]
                return
            }
        }
    }

    private func runTasks() {
        while true {
            // Cleared before taking the tasks: one queued after this point writes a new wake-up.
            wakePending.store(false, ordering: .releasing)
            let batch = tasks.withLock { tasks -> [@Sendable () -> Void] in
                var taken: [@Sendable () -> Void] = []
                swap(&taken, &tasks)
                return taken
            }
            if batch.isEmpty { return }
            for task in batch { task() }
        }
    }

    static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }
}

/// The event loops' threads, as code outside the server may ask about them.
public enum EventLoopThread {
    /// Whether the calling thread is any event loop's: nothing that blocks may run there.
    public static var isCurrent: Bool { cevent_on_loop_thread() != 0 }
}
