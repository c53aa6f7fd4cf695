import HTTP
import Synchronization

/// Whether a click's answer waits for its row, and the wait: a tap on a link and a LinkForty
/// resolve pass one to `ClickRecorder`, which arms it when the writer is behind
/// (`ClickService.isWriterBehind`); the route then answers once the row is committed. An answer
/// that waits costs no thread: the writer's completion sends it. So clicks arrive no faster than
/// they are stored, and the rows waiting in memory stay bounded.
final class ClickCommit: Sendable {
    private struct State {
        var armed = false
        var result: Result<Void, any Error>?
        var waiter: (@Sendable (Result<Void, any Error>) -> Void)?
    }

    private let state = Mutex(State())

    /// Called by the recorder before it queues a row that the answer is to wait for.
    func arm() { state.withLock { $0.armed = true } }

    var isArmed: Bool { state.withLock { $0.armed } }

    /// The writer's completion of the row.
    func complete(_ result: Result<Void, any Error>) {
        let waiter = state.withLock { state -> (@Sendable (Result<Void, any Error>) -> Void)? in
            guard let waiter = state.waiter else {
                state.result = result
                return nil
            }
            return waiter
        }
        waiter?(result)
    }

    /// Calls `waiter` once the row is committed (at once when it already is).
    func whenCommitted(_ waiter: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let done = state.withLock { state -> Result<Void, any Error>? in
            if let result = state.result { return result }
            state.waiter = waiter
            return nil
        }
        if let done { waiter(done) }
    }
}

extension ClickCommit {
    /// A route that records a click (a tap on a link, a LinkForty resolve): runs on the event
    /// loop and answers at once, or, when `answer` armed the commit, once the click's row is
    /// committed.
    static func route(_ answer: @escaping @Sendable (HTTPRequest, ClickCommit) throws -> HTTPResponse) -> RouteHandler {
        .deferred { request, done in
            let commit = ClickCommit()
            do {
                let response = try answer(request, commit)
                guard commit.isArmed else { return done(.success(response)) }
                commit.whenCommitted { result in done(result.map { response }) }
            } catch {
                done(.failure(error))
            }
        }
    }
}
