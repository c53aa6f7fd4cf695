import CLibPQ
import Foundation
public import SQLValues

/// What PostgreSQL or libpq said went wrong: the SQLSTATE when the server answered (23505 a unique
/// violation, 40001 a serialization failure…), nil when no answer came (connection refused, lost).
public struct PGError: Error, CustomStringConvertible, Sendable {
    public let sqlState: String?
    public let message: String

    public var description: String { sqlState.map { "\($0): \(message)" } ?? message }
    public var isUniqueViolation: Bool { sqlState == "23505" }
    /// The connection is gone (a restart, a failover): a new connection may succeed.
    public var isConnectionLost: Bool { sqlState == nil || sqlState?.hasPrefix("08") == true || sqlState == "57P01" }
    /// Two transactions crossed (a deadlock, a serialization failure): the one refused may run
    /// again from its start.
    public var isRetryable: Bool { sqlState == "40P01" || sqlState == "40001" }
    /// A value the database cannot hold (a NUL in text): the client's to fix.
    public var isUnstorable: Bool { sqlState == "22021" }
    /// The statement refused was a write sent without waiting for its answer
    /// (`PGConnection.runUnanswered`), and heard of with a later statement: its transaction is
    /// aborted, and its writes are to run again, each waiting for its answer.
    public internal(set) var sentUnanswered = false

    public init(sqlState: String?, message: String) {
        self.sqlState = sqlState
        self.message = message
    }
}

extension SQLValue {
    /// The value in PostgreSQL's text format, as it is sent for a `$n`.
    var text: String? {
        switch self {
        case .null: nil
        case .text(let value): value
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .boolean(let value): value ? "t" : "f"
        case .bytes(let value): "\\x" + value.map { String(format: "%02x", $0) }.joined()
        }
    }
}

/// The rows a statement returned, copied out of libpq's result (text format).
public struct PGRows: Sendable {
    public let columns: [String]
    public let rows: [[String?]]
    /// Rows an INSERT, UPDATE or DELETE changed.
    public let affected: Int

    public func text(_ row: Int, _ column: Int) -> String? { rows[row][column] }
    public func integer(_ row: Int, _ column: Int) -> Int64? { rows[row][column].flatMap { Int64($0) } }
    public func real(_ row: Int, _ column: Int) -> Double? { rows[row][column].flatMap { Double($0) } }
    public func boolean(_ row: Int, _ column: Int) -> Bool? { rows[row][column].map { $0 == "t" } }
}

/// One connection to PostgreSQL through libpq, used by one thread at a time (like
/// `SQLiteConnection`). Every statement with parameters is prepared once per connection and
/// executed with its values bound, never spliced into the SQL. The URL is libpq's own
/// (`postgres://user:password@host:port/db?sslmode=require`), so TLS to the database is asked for
/// there and verified by libpq.
public final class PGConnection {
    var handle: OpaquePointer?
    private var prepared: [StatementText: String] = [:]
    /// Answers of statements sent ahead (`beginReadingAhead`, `runAhead`), by statement and
    /// values; each is handed to as many `query`s asking the same as it was asked for ahead, then
    /// forgotten.
    var readAhead: [ReadAheadKey: (rows: PGRows, uses: Int)] = [:]
    /// Whether writes whose answers nobody reads go without waiting (`runUnanswered`): set by
    /// the transaction that allows it.
    public var defersWrites = false
    /// What the code running a transaction on this connection keeps beside it until its end (a
    /// writer's batch keeps its rollup deltas here, to write them once before the COMMIT).
    public var transactionState: AnyObject?
    /// Writes sent and not answered yet; the connection is in pipeline mode while there are any.
    var unanswered = 0
    /// The first of them refused in the open transaction (which is then aborted).
    var unansweredRefusal: PGError?
    /// Unanswered writes of one `INSERT` text not sent yet: sent as one statement of their rows
    /// before anything else is (`MultiRowInsert`).
    var coalesced: (sql: String, rows: [[SQLValue]])?

    public init(url: String) throws(PGError) {
        handle = PQconnectdb(url)
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.clientMessage(handle)
            PQfinish(handle)
            handle = nil
            throw PGError(sqlState: nil, message: "cannot connect to PostgreSQL: \(message)")
        }
        // NOTICEs ("relation already exists, skipping") are the server talking to a person at a
        // psql prompt; libpq would print them to our stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    public var isConnected: Bool { PQstatus(handle) == CONNECTION_OK }

    /// The server's version as a number (150004 for 15.4).
    public var serverVersion: Int { Int(PQserverVersion(handle)) }

    /// Runs SQL without parameters (several statements allowed): migrations, SET, BEGIN.
    public func execute(_ sql: String) throws(PGError) {
        if sql.hasPrefix("ROLLBACK") { coalesced = nil } else { try sendCoalescedWrites() }
        if unanswered > 0 { _ = try finishPipeline(answering: 0) }
        // A COMMIT of an aborted transaction would roll it back and say nothing.
        if let refusal = unansweredRefusal, !sql.hasPrefix("ROLLBACK") { throw refusal }
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// Reads the transaction-local setting `name` and commits, in one round trip: both statements
    /// go in one simple-query message, their answers come back in order. A failed COMMIT (or read)
    /// throws as `execute("COMMIT")` would, the transaction then rolled back or still to roll back.
    public func commitReadingSetting(_ name: StaticString) throws(PGError) -> String? {
        try sendCoalescedWrites()
        if unanswered > 0 {
            // In the pipeline the unanswered writes are in: the same round trip answers them too.
            try sendInPipeline("SELECT current_setting('\(name)', true)")
            try sendInPipeline("COMMIT")
            let (answers, refused) = try finishPipeline(answering: 2)
            if let refusal = unansweredRefusal ?? refused { throw refusal }
            return answers[0]?.text(0, 0)
        }
        if let refusal = unansweredRefusal { throw refusal }
        guard PQsendQuery(handle, "SELECT current_setting('\(name)', true); COMMIT") == 1 else {
            throw PGError(sqlState: nil, message: Self.clientMessage(handle))
        }
        var value: String?
        var failure: PGError?
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            do throws(PGError) {
                try check(result)
                if PQresultStatus(result) == PGRES_TUPLES_OK { value = Self.rows(result).text(0, 0) }
            } catch {
                failure = failure ?? error
            }
        }
        if let failure { throw failure }
        return value
    }

    /// Runs a statement with `$1…$n` bound to `parameters`; prepared on first use on this connection.
    @discardableResult
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws(PGError) -> PGRows {
        try Self.refuseNUL(parameters)
        if !readAhead.isEmpty, let rows = takeReadAhead(Self.readAheadKey(sql, parameters)) { return rows }
        try sendCoalescedWrites()
        let name = try statementName(for: sql, parameterCount: parameters.count)
        if unanswered > 0 {
            // Sent after the unanswered writes, in their pipeline: one round trip answers all.
            try sendInPipeline(prepared: name, parameters)
            let (answers, refused) = try finishPipeline(answering: 1)
            if let refusal = unansweredRefusal ?? refused { throw refusal }
            guard let rows = answers[0] else { throw PGError(sqlState: nil, message: "no answer to a statement sent in a pipeline") }
            return rows
        }
        if let refusal = unansweredRefusal { throw refusal }
        let result = Self.withTexts(parameters) { count, values in PQexecPrepared(handle, name, count, values, nil, nil, 0) }
        defer { PQclear(result) }
        try check(result)
        return Self.rows(result)
    }

    /// libpq sends text as C strings: a NUL would cut the value short, silently.
    static func holdsNUL(_ values: [SQLValue]) -> Bool { values.contains { $0.text?.utf8.contains(0) == true } }

    static func refuseNUL(_ values: [SQLValue]) throws(PGError) {
        if holdsNUL(values) { throw PGError(sqlState: "22021", message: "a value holds a NUL character, which PostgreSQL cannot store") }
    }

    private func takeReadAhead(_ key: ReadAheadKey) -> PGRows? {
        guard let answer = readAhead[key] else { return nil }
        if answer.uses > 1 { readAhead[key]!.uses -= 1 } else { readAhead.removeValue(forKey: key) }
        return answer.rows
    }

    /// Waits up to `timeoutMilliseconds` for NOTIFY messages on the channels this connection
    /// LISTENs to; their payloads (empty when none came in time).
    public func notifications(waitingUpTo timeoutMilliseconds: Int32) throws(PGError) -> [String] {
        var payloads = takeNotifications()
        if !payloads.isEmpty { return payloads }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw PGError(sqlState: nil, message: "the connection to PostgreSQL is closed") }
        let ready = poll(&descriptor, 1, timeoutMilliseconds)
        guard ready > 0 else { return [] }
        guard PQconsumeInput(handle) == 1, isConnected else {
            throw PGError(sqlState: nil, message: "lost the connection to PostgreSQL: \(Self.clientMessage(handle))")
        }
        payloads = takeNotifications()
        return payloads
    }

    private func takeNotifications() -> [String] {
        var payloads: [String] = []
        while let notice = PQnotifies(handle) {
            payloads.append(String(cString: notice.pointee.extra))
            PQfreemem(notice)
        }
        return payloads
    }

    /// Runs `body` with `values` as C strings, as libpq's parameter arrays take them (an empty
    /// array need not have storage to point at: no parameters, no pointer).
    static func withTexts<T>(_ values: [SQLValue], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        var texts: [UnsafeMutablePointer<CChar>?] = values.map { $0.text.flatMap { strdup($0) } }
        defer { for pointer in texts { free(pointer) } }
        return texts.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return body(0, nil) }
            return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { body(Int32(buffer.count), $0) }
        }
    }

    /// Connects again after the server went away (a restart, a failover); prepared statements
    /// are prepared again on next use.
    public func reconnect() throws(PGError) {
        prepared.removeAll()
        readAhead.removeAll()
        coalesced = nil
        unanswered = 0
        unansweredRefusal = nil
        PQreset(handle)
        guard isConnected else { throw PGError(sqlState: nil, message: "cannot reconnect to PostgreSQL: \(Self.clientMessage(handle))") }
    }

    func statementName(for sql: String, parameterCount: Int) throws(PGError) -> String {
        if let name = prepared[StatementText(text: sql)] { return name }
        try sendCoalescedWrites()
        if unanswered > 0 { _ = try finishPipeline(answering: 0) }  // a PQprepare waits for its answer
        if let refusal = unansweredRefusal { throw refusal }  // the transaction is aborted: that is the answer
        let name = "s\(prepared.count)"
        let result = PQprepare(handle, name, PGPlaceholders.numbered(sql), Int32(parameterCount), nil)
        defer { PQclear(result) }
        try check(result)
        prepared[StatementText(text: sql)] = name
        return name
    }

    func check(_ result: OpaquePointer?) throws(PGError) {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? Self.clientMessage(handle)
            throw PGError(sqlState: state, message: message)
        }
    }

    static func rows(_ result: OpaquePointer?) -> PGRows {
        let columnCount = PQnfields(result)
        let rowCount = PQntuples(result)
        let columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        let rows = (0..<rowCount).map { row in
            (0..<columnCount).map { column -> String? in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return PGRows(columns: columns, rows: rows, affected: affected)
    }

    static func clientMessage(_ handle: OpaquePointer?) -> String {
        guard let text = PQerrorMessage(handle) else { return "unknown libpq error" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
