public import Synchronization

/// What the delivery worker has done since start, for /metrics.
public final class DeliveryCounters: Sendable {
    public let delivered = Atomic<Int>(0)
    public let retried = Atomic<Int>(0)
    public let failed = Atomic<Int>(0)
    public let inFlight = Atomic<Int>(0)

    public init() {}
}
