public import Dispatch
import Foundation
import Synchronization

/// Services started in the order given and stopped in the reverse one, each by one deadline.
/// A service that fails to start stops the ones before it; stopping twice stops once.
public final class ServiceGroup: Sendable {
    public enum Event: Sendable {
        case started(String)
        case stopped(String, late: Bool)
    }

    private let services: [any Service]
    private let started = Mutex<[any Service]>([])
    private let observe: @Sendable (Event) -> Void

    public init(_ services: [any Service], observe: @escaping @Sendable (Event) -> Void = { _ in }) {
        self.services = services
        self.observe = observe
    }

    public func start() throws {
        for service in services {
            do {
                try service.start()
            } catch {
                stop(within: .seconds(5))
                throw error
            }
            started.withLock { $0.append(service) }
            observe(.started(service.serviceName))
        }
    }

    /// Stops what was started, newest first; every service shares the one deadline.
    public func stop(within time: DispatchTimeInterval) {
        let deadline = DispatchTime.now() + time
        let stopping = started.withLock { list in
            defer { list.removeAll() }
            return list
        }
        for service in stopping.reversed() {
            service.stop(by: deadline)
            observe(.stopped(service.serviceName, late: DispatchTime.now() > deadline))
        }
    }
}

/// Services that start one after another and stop all at once, each by the same deadline: the
/// HTTP and HTTPS listeners drain side by side rather than one after the other.
public final class ConcurrentServices: Service {
    public let serviceName: String
    private let services: [any Service]

    public init(_ name: String, _ services: [any Service]) {
        serviceName = name
        self.services = services
    }

    public func start() throws {
        for (index, service) in services.enumerated() {
            do {
                try service.start()
            } catch {
                Self.stop(Array(services[..<index]), by: .now() + .seconds(5))
                throw error
            }
        }
    }

    public func stop(by deadline: DispatchTime) { Self.stop(services, by: deadline) }

    /// Each on a thread of its own (`concurrentPerform` may run them one after another when the
    /// pool is busy), waiting for all.
    private static func stop(_ services: [any Service], by deadline: DispatchTime) {
        let group = DispatchGroup()
        for service in services {
            group.enter()
            Thread.detachNewThread {
                service.stop(by: deadline)
                group.leave()
            }
        }
        group.wait()
    }
}
