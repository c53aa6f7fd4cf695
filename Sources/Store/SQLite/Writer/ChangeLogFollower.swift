@preconcurrency import Dispatch

/// A change another process made to a table the server keeps in memory (migration 0027).
public struct TableChange: Sendable, Equatable {
    public let table: String
    /// For `links`: the short code whose cache entry is stale; nil: every link.
    public let linkCode: String?

    public init(table: String, linkCode: String? = nil) {
        self.table = table
        self.linkCode = linkCode
    }

    /// Every watched table, as a follower that fell behind the log reports it.
    static let everything = ["projects", "api_keys", "signing_keys", "templates", "webhook_endpoints", "postback_templates", "links"]
        .map { TableChange(table: $0) }
}

/// Reads `change_log` after its cursor every `interval` and hands what it finds to `observer`,
/// off every event loop. The server's own writes are in the log too: emptying a cache entry the
/// writer's own commit already emptied costs one reload of it, nothing more.
final class ChangeLogFollower: @unchecked Sendable {  // the timer is set up in init, then only cancelled
    private let timer: any DispatchSourceTimer
    private let readers: ReaderPool
    private let observer: @Sendable ([TableChange]) -> Void
    /// The newest row read; touched only on the timer's queue.
    private var cursor: Int64

    init(readers: ReaderPool, interval: DispatchTimeInterval = .milliseconds(250), observer: @escaping @Sendable ([TableChange]) -> Void) {
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
            let (rows, oldest) = try? readers.read({ connection -> ([(Int64, TableChange)], Int64) in
                let rows = try connection.query("SELECT seq, table_name, link_code FROM change_log WHERE seq > ? ORDER BY seq", after) {
                    ($0.int(0), TableChange(table: $0.string(1), linkCode: $0.optionalString(2)))
                }
                let oldest = rows.isEmpty ? 0 : try connection.queryOne("SELECT min(seq) FROM change_log") { $0.int(0) } ?? 0
                return (rows, oldest)
            }), let last = rows.last?.0
        else { return }
        cursor = last
        // Rows after the cursor were pruned before this read: what they said is lost, so everything may be stale.
        observer(after + 1 < oldest ? TableChange.everything : rows.map(\.1))
    }
}
