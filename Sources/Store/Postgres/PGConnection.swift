import CLibPQ
import Foundation

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
}

/// A value bound to a statement's `$n`, sent in PostgreSQL's text format.
public enum PGValue: Sendable, Equatable {
    case null
    case text(String)
    case integer(Int64)
    case real(Double)
    case boolean(Bool)
    /// BYTEA, sent in its hex text form (`\x0a1b…`).
    case bytes([UInt8])

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
    private var handle: OpaquePointer?
    private var prepared: [String: String] = [:]
    /// Answers of statements sent ahead (`beginReadingAhead`, `runAhead`), by statement and
    /// values; each is handed to the first `query` that asks the same, then forgotten.
    private var readAhead: [String: PGRows] = [:]

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
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// Reads the transaction-local setting `name` and commits, in one round trip: both statements
    /// go in one simple-query message, their answers come back in order. A failed COMMIT (or read)
    /// throws as `execute("COMMIT")` would, the transaction then rolled back or still to roll back.
    public func commitReadingSetting(_ name: StaticString) throws(PGError) -> String? {
        guard PQsendQuery(handle, "SELECT current_setting('\(name)', true); COMMIT") == 1 else {
            throw PGError(sqlState: nil, message: Self.clientMessage(handle))
        }
        var value: String?, failure: PGError?
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
    public func query(_ sql: String, _ parameters: [PGValue] = []) throws(PGError) -> PGRows {
        // libpq sends text as C strings: a NUL would cut the value short, silently.
        if parameters.contains(where: { $0.text?.utf8.contains(0) == true }) {
            throw PGError(sqlState: "22021", message: "a value holds a NUL character, which PostgreSQL cannot store")
        }
        if !readAhead.isEmpty, let rows = readAhead.removeValue(forKey: Self.readAheadKey(sql, parameters)) { return rows }
        let name = try statementName(for: sql, parameterCount: parameters.count)
        let result = Self.withTexts(parameters) { count, values in PQexecPrepared(handle, name, count, values, nil, nil, 0) }
        defer { PQclear(result) }
        try check(result)
        return Self.rows(result)
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

    /// Runs `statements` as one transaction in libpq's pipeline mode: BEGIN, every statement and
    /// COMMIT are sent without waiting for each answer, then the answers are read, so the batch
    /// costs one round trip instead of one per statement. The rows each statement changed; when
    /// one fails, PostgreSQL skips the rest up to the sync point, the transaction is rolled back,
    /// and the first error is thrown with nothing stored.
    public func pipelinedTransaction(_ statements: [(sql: String, values: [PGValue])]) throws(PGError) -> [Int] {
        if statements.contains(where: { $0.values.contains { $0.text?.utf8.contains(0) == true } }) {
            throw PGError(sqlState: "22021", message: "a value holds a NUL character, which PostgreSQL cannot store")
        }
        var names: [String] = []
        names.reserveCapacity(statements.count)
        for statement in statements { names.append(try statementName(for: statement.sql, parameterCount: statement.values.count)) }
        guard PQenterPipelineMode(handle) == 1 else { throw PGError(sqlState: nil, message: "cannot enter pipeline mode: \(Self.clientMessage(handle))") }
        var exited = false
        defer { if !exited { PQexitPipelineMode(handle) } }
        func sendCommand(_ sql: String) -> Bool { PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0) == 1 }
        var sent = sendCommand("BEGIN")
        for (index, statement) in statements.enumerated() where sent {
            sent = Self.withTexts(statement.values) { count, values in
                PQsendQueryPrepared(handle, names[index], count, values, nil, nil, 0) == 1
            }
        }
        sent = sent && sendCommand("COMMIT") && PQpipelineSync(handle) == 1
        guard sent else { throw PGError(sqlState: nil, message: "lost the connection to PostgreSQL: \(Self.clientMessage(handle))") }
        // Answers: BEGIN, each statement, COMMIT (each a result then NULL), then the sync point.
        var affected: [Int] = []
        affected.reserveCapacity(statements.count)
        var firstError: PGError?
        for position in 0..<(statements.count + 2) {
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                let status = PQresultStatus(result)
                if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK {
                    if position >= 1 && position <= statements.count {
                        affected.append(PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0)
                    }
                } else if status != PGRES_PIPELINE_ABORTED, firstError == nil {
                    let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
                    let message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? Self.clientMessage(handle)
                    firstError = PGError(sqlState: state, message: message)
                }
            }
            if !isConnected { break }
        }
        // The sync point ends the pipeline's answers.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        guard isConnected else { throw PGError(sqlState: nil, message: "lost the connection to PostgreSQL: \(Self.clientMessage(handle))") }
        PQexitPipelineMode(handle)
        exited = true
        if let firstError {
            // A pipeline skips everything after an error up to the sync point, COMMIT included:
            // the transaction is still open, aborted.
            try execute("ROLLBACK")
            throw firstError
        }
        return affected
    }

    /// BEGIN and `reads` in one round trip (libpq's pipeline mode), inside the new transaction;
    /// each answer waits for the `query` of the same statement and values. A read refused aborts
    /// the pipeline: the transaction then starts again plainly, with nothing read ahead.
    public func beginReadingAhead(_ reads: [(sql: String, values: [PGValue])]) throws(PGError) {
        readAhead.removeAll()
        if try sendAhead(reads, beginning: true) != nil {
            _ = try? execute("ROLLBACK")
            try execute("BEGIN")
        }
    }

    /// `statements` in one round trip inside the open transaction, each answer waiting for the
    /// `query` of the same statement and values: statements the caller runs next whatever they
    /// return. One refused is thrown, as it would be when run, the transaction then aborted.
    public func runAhead(_ statements: [(sql: String, values: [PGValue])]) throws(PGError) {
        if let refused = try sendAhead(statements, beginning: false) { throw refused }
    }

    /// Sends `reads` (after a BEGIN when `beginning`) in one pipeline and keeps their answers;
    /// the first refusal, when one was refused (nothing kept then).
    private func sendAhead(_ reads: [(sql: String, values: [PGValue])], beginning: Bool) throws(PGError) -> PGError? {
        guard !reads.isEmpty, !reads.contains(where: { $0.values.contains { $0.text?.utf8.contains(0) == true } }) else {
            if beginning { try execute("BEGIN") }
            return nil
        }
        var names: [String] = []
        for read in reads { names.append(try statementName(for: read.sql, parameterCount: read.values.count)) }
        guard PQenterPipelineMode(handle) == 1 else { throw PGError(sqlState: nil, message: "cannot enter pipeline mode: \(Self.clientMessage(handle))") }
        var sent = !beginning || PQsendQueryParams(handle, "BEGIN", 0, nil, nil, nil, nil, 0) == 1
        for (index, read) in reads.enumerated() where sent {
            sent = Self.withTexts(read.values) { count, values in
                PQsendQueryPrepared(handle, names[index], count, values, nil, nil, 0) == 1
            }
        }
        sent = sent && PQpipelineSync(handle) == 1
        var answers: [PGRows?] = []
        var refused: PGError?
        // Answers: the BEGIN when sent, each read (each a result then NULL), then the sync point.
        for _ in 0..<(reads.count + (beginning ? 1 : 0)) where sent {
            var answer: PGRows?
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                let status = PQresultStatus(result)
                if status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK {
                    answer = Self.rows(result)
                } else if refused == nil {
                    do throws(PGError) { try check(result) } catch { refused = error }
                }
            }
            answers.append(answer)
            if !isConnected { break }
        }
        while sent, isConnected, let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        PQexitPipelineMode(handle)
        guard sent, isConnected else { throw PGError(sqlState: nil, message: "lost the connection to PostgreSQL: \(Self.clientMessage(handle))") }
        if let refused { return refused }
        let first = beginning ? 1 : 0
        for (index, read) in reads.enumerated() {
            if let rows = answers[first + index] { readAhead[Self.readAheadKey(read.sql, read.values)] = rows }
        }
        return nil
    }

    /// Forgets what was read ahead and not asked for (the transaction ended).
    public func forgetReadAhead() { readAhead.removeAll() }

    private static func readAheadKey(_ sql: String, _ values: [PGValue]) -> String {
        var key = sql
        for value in values {
            key.append("\u{1E}")
            key.append(value.text ?? "\u{0}")
        }
        return key
    }

    /// Runs `body` with `values` as C strings, as libpq's parameter arrays take them (an empty
    /// array need not have storage to point at: no parameters, no pointer).
    private static func withTexts<T>(_ values: [PGValue], _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
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
        PQreset(handle)
        guard isConnected else { throw PGError(sqlState: nil, message: "cannot reconnect to PostgreSQL: \(Self.clientMessage(handle))") }
    }

    private func statementName(for sql: String, parameterCount: Int) throws(PGError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count)"
        let result = PQprepare(handle, name, PGPlaceholders.numbered(sql), Int32(parameterCount), nil)
        defer { PQclear(result) }
        try check(result)
        prepared[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?) throws(PGError) {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? Self.clientMessage(handle)
            throw PGError(sqlState: state, message: message)
        }
    }

    private static func rows(_ result: OpaquePointer?) -> PGRows {
        let columnCount = PQnfields(result), rowCount = PQntuples(result)
        let columns = (0..<columnCount).map { String(cString: PQfname(result, $0)) }
        let rows = (0..<rowCount).map { row in
            (0..<columnCount).map { column -> String? in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return PGRows(columns: columns, rows: rows, affected: affected)
    }

    private static func clientMessage(_ handle: OpaquePointer?) -> String {
        guard let text = PQerrorMessage(handle) else { return "unknown libpq error" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
