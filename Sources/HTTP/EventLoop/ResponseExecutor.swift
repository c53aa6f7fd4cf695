/// The event loop that owns a request's connection, for handlers whose answer is produced on
/// another thread (the database writer): handing their completion to it means the response is
/// built and written on that loop, without a trip through a thread pool in between.
public struct ResponseExecutor: Sendable {
    let loop: EventLoop

    /// The same for every request of one loop: lets a producer group the work it hands over.
    public var loopIdentity: ObjectIdentifier { ObjectIdentifier(loop) }

    /// Runs `work` on the connection's loop, after the events it is handling now.
    public func execute(_ work: @escaping @Sendable () -> Void) { loop.execute(work) }
}
