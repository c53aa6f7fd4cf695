@preconcurrency import Dispatch
import StoreContracts

extension TopicChange {
    /// Every watched topic, as a follower that fell behind the log reports it.
    static let everything = [
        ChangeTopic.projects, .apiKeys, .signingKeys, .templates, .webhookEndpoints, .postbackTemplates, .adPlatformConnections, .links,
    ]
    .map { TopicChange(topic: $0) }
}

/// Reads `change_log` after its cursor every `interval` and hands what it finds to `observer`,
/// off every event loop. The server's own writes are in the log too: emptying a cache entry the
/// writer's own commit already emptied costs one reload of it, nothing more.
final class ChangeLogFollower: @unchecked Sendable {  // the timer is set up in init, then only cancelled
    private let timer: any DispatchSourceTimer
    private let readers: ReaderPool
    private let observer: @Sendable ([TopicChange]) -> Void
    /// The newest row read; touched only on the timer's queue.
    private var cursor: Int64

    init(readers: ReaderPool, interval: DispatchTimeInterval = .milliseconds(250), observer: @escaping @Sendable ([TopicChange]) -> Void) {
        self.readers = readers
        self.observer = observer
        cursor = ((try? readers.read { try $0.queryOne("SELECT coalesce(max(seq), 0) FROM change_log") { $0.int(0) } }) ?? nil) ?? 0
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "attributiond.change-log", qos: .utility))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.poll() }
        timer.resume()
    }

    deinit { timer.cancel() }

    private func poll() {
        let after = cursor
        guard
            let (rows, oldest) = try? readers.read({ connection -> ([(Int64, TopicChange?)], Int64) in
                let rows = try connection.query("SELECT seq, table_name, link_code FROM change_log WHERE seq > ? ORDER BY seq", after) {
                    row in (row.int(0), ChangeTopic(rawValue: row.string(1)).map { TopicChange(topic: $0, linkCode: row.optionalString(2)) })
                }
                let oldest = rows.isEmpty ? 0 : try connection.queryOne("SELECT min(seq) FROM change_log") { $0.int(0) } ?? 0
                return (rows, oldest)
            }), let last = rows.last?.0
        else { return }
        cursor = last
        // Rows after the cursor were pruned before this read: what they said is lost, so everything may be stale.
        observer(after + 1 < oldest ? TopicChange.everything : rows.compactMap { $0.1 })
    }
}
