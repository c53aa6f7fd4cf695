/// Where a write's completion goes once its transaction is over, on either backend (SQLite's
/// `DatabaseWriter`, PostgreSQL's `PGWriter`): `send` hands work to the thread named by `target`
/// (an event loop, say), and must only hand it on, as the writer thread calls it right after the
/// COMMIT. All the completions of one commit bound for the same target go in one `send`, so a
/// batch wakes each event loop once rather than once per write (every wake-up can preempt the
/// writer). Without a delivery, completions run on the writer's completion queue.
public struct WriteDelivery: Sendable {
    package let target: ObjectIdentifier
    package let send: @Sendable (@escaping @Sendable () -> Void) -> Void

    public init(target: ObjectIdentifier, send: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.target = target
        self.send = send
    }

    /// Completions that only wake a thread blocked on the outcome run on the writer thread,
    /// right after the commit. Run on the completion queue, they waited for a worker of the
    /// same Dispatch pool whose workers were the blocked callers themselves (a concurrent
    /// queue's pool on Linux is about one thread per core and grows only after a second or
    /// more): the first burst of concurrent admin writes after a start stalled for seconds.
    package static let immediate = WriteDelivery(target: ObjectIdentifier(Immediate.self), send: { $0() })
    private final class Immediate {}
}
