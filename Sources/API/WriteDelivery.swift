import HTTP
import StoreContracts

extension HTTPRequest {
    /// Hands a write's completion straight to the request's event loop, which builds and sends
    /// the response; nil (the writer's completion queue) for requests without a connection.
    var writeDelivery: WriteDelivery? {
        guard let executor else { return nil }
        return WriteDelivery(target: executor.loopIdentity) { work in executor.execute(work) }
    }
}
