public import Dispatch
public import Lifecycle

extension HTTPServer: Service {
    public var serviceName: String { context.tls == nil ? "http" : "https" }

    /// Drains as `shutdown` does (connections finish what they read, stragglers are closed at
    /// `limits.drainTimeout`), waiting no later than `deadline`.
    public func stop(by deadline: DispatchTime) {
        let done = DispatchSemaphore(value: 0)
        shutdown { done.signal() }
        _ = done.wait(timeout: deadline)
    }
}
