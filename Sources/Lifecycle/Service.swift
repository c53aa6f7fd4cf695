public import Dispatch

/// A long-running part of the server that starts once and stops once: the HTTP servers, the
/// outbox worker, the retention and warm-up timers, the request log, the store. `ServiceGroup`
/// starts them in order and stops them in reverse, so each stops while what it uses still runs.
public protocol Service: AnyObject, Sendable {
    /// How the lifecycle lines name it.
    var serviceName: String { get }
    /// Begins the work; a throw stops the services started before it.
    func start() throws
    /// Ends the work, returning by `deadline` (work still under way may be cut short then).
    func stop(by deadline: DispatchTime)
}

/// A service made of two closures, for parts that need no type of their own (flushing a log,
/// closing a store).
public final class ClosureService: Service {
    public let serviceName: String
    private let onStart: @Sendable () throws -> Void
    private let onStop: @Sendable (DispatchTime) -> Void

    public init(_ name: String, start: @escaping @Sendable () throws -> Void = {}, stop: @escaping @Sendable (DispatchTime) -> Void) {
        serviceName = name
        onStart = start
        onStop = stop
    }

    public func start() throws { try onStart() }
    public func stop(by deadline: DispatchTime) { onStop(deadline) }
}
