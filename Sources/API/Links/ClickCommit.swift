import App
import HTTP
import Synchronization

/// A click's answer waiting for its row: made by a tap's or a LinkForty resolve's route when the
/// writer is behind (`ClickService.isWriterBehind`) and handed to `ClickRecorder`, which arms it
/// as it queues the row; the route then answers once the row is committed. An answer that waits
/// costs no thread: the writer's completion sends it. So clicks arrive no faster than they are
/// stored, and the rows waiting in memory stay bounded.
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
    /// loop and answers at once; while the writer is behind, `answer` gets a commit to hand to
    /// the recorder, and the answer goes once the click's row is committed (if one was recorded).
    static func route(
        _ services: Services, _ answer: @escaping @Sendable (HTTPRequest, ClickCommit?) throws -> HTTPResponse
    ) -> RouteHandler {
        .deferred { request, done in
            // Made only when it may be needed: nothing allocated per click while the writer keeps up.
            let commit = services.app.clicks.isWriterBehind ? ClickCommit() : nil
            do {
                let response = try answer(request, commit)
                guard let commit, commit.isArmed else { return done(.success(response)) }
                commit.whenCommitted { result in done(result.map { response }) }
            } catch {
                done(.failure(error))
            }
        }
    }
}
