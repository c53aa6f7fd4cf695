import CLibPQ
public import SQLValues

/// Statements sent without waiting for each answer (libpq's pipeline mode): a batch of writes as
/// one transaction, reads sent ahead of the statements that ask for them, and writes whose
/// answers nobody reads, answered together with the next statement that needs an answer.
extension PGConnection {
    /// Runs `statements` as one transaction in libpq's pipeline mode: BEGIN, every statement and
    /// COMMIT are sent without waiting for each answer, then the answers are read, so the batch
    /// costs one round trip instead of one per statement. The rows each statement changed; when
    /// one fails, PostgreSQL skips the rest up to the sync point, the transaction is rolled back,
    /// and the first error is thrown with nothing stored.
    public func pipelinedTransaction(_ statements: [(sql: String, values: [SQLValue])]) throws(PGError) -> [Int] {
        for statement in statements { try Self.refuseNUL(statement.values) }
        var names: [String] = []
        names.reserveCapacity(statements.count)
        for statement in statements { names.append(try statementName(for: statement.sql, parameterCount: statement.values.count)) }
        try sendInPipeline("BEGIN")
        for (index, statement) in statements.enumerated() { try sendInPipeline(prepared: names[index], statement.values) }
        try sendInPipeline("COMMIT")
        // Answers: BEGIN, each statement, COMMIT.
        let (answers, refused) = try finishPipeline(answering: statements.count + 2)
        if let refused {
            // A pipeline skips everything after an error up to the sync point, COMMIT included:
            // the transaction is still open, aborted.
            try execute("ROLLBACK")
            throw refused
        }
        return answers.dropFirst().prefix(statements.count).map { $0?.affected ?? 0 }
    }

    /// BEGIN and `reads` in one round trip (libpq's pipeline mode), inside the new transaction;
    /// each answer waits for the `query` of the same statement and values. A read refused aborts
    /// the pipeline: the transaction then starts again plainly, with nothing read ahead.
    /// Reads asked for more than once (a batch's events of one install) are sent once, and the
    /// answer serves each: made at the same moment, before any write, they would all say the same.
    public func beginReadingAhead(_ reads: [(sql: String, values: [SQLValue])]) throws(PGError) {
        readAhead.removeAll()
        if try sendAhead(reads, beginning: true) != nil {
            _ = try? execute("ROLLBACK")
            try execute("BEGIN")
        }
    }

    /// `statements` in one round trip inside the open transaction, each answer waiting for the
    /// `query` of the same statement and values: statements the caller runs next whatever they
    /// return. One refused is thrown, as it would be when run, the transaction then aborted.
    public func runAhead(_ statements: [(sql: String, values: [SQLValue])]) throws(PGError) {
        if let refused = try sendAhead(statements, beginning: false) { throw refused }
    }

    /// Sends `reads` (after a BEGIN when `beginning`) in one pipeline, after any unanswered
    /// writes, and keeps their answers; the first refusal, when one was refused (nothing kept then).
    private func sendAhead(_ reads: [(sql: String, values: [SQLValue])], beginning: Bool) throws(PGError) -> PGError? {
        // A read with a NUL is not sent ahead: asked for, it is refused as `query` refuses it.
        guard !reads.isEmpty, !reads.contains(where: { Self.holdsNUL($0.values) }) else {
            if beginning { try execute("BEGIN") }
            return nil
        }
        // Each statement once (with BEGIN only reads come, so one answer serves every copy).
        var distinct: [DistinctRead] = []
        var copies: [ReadAheadKey: Int] = [:]
        for read in reads {
            let key = Self.readAheadKey(read.sql, read.values)
            if beginning, let count = copies[key] {
                copies[key] = count + 1
                continue
            }
            copies[key] = 1
            distinct.append((key, read))
        }
        // With BEGIN, reads of one statement go as one (`BatchedReads`), each answer split out of
        // it: a statement sent for more than one key is a joined one.
        var sent: [(keys: [ReadAheadKey], name: String, values: [SQLValue])] = []
        for group in beginning ? Self.byStatement(distinct) : distinct.map({ [$0] }) {
            let first = group[0].read
            if group.count > 1, let batch = BatchedReads(first.sql, valueSets: group.map(\.read.values)),
                let name = try? statementName(for: batch.sql, parameterCount: batch.values.count)
            {  // refused: each alone
                sent.append((group.map(\.key), name, batch.values))
            } else {
                for member in group {
                    sent.append(
                        (
                            [member.key], try statementName(for: member.read.sql, parameterCount: member.read.values.count),
                            member.read.values
                        ))
                }
            }
        }
        if beginning { try sendInPipeline("BEGIN") }
        // A joined read's own plan, made for its values, is planned again on every call: against
        // it, the cached plan's guess of 100 sets of values always looks dearer (two nodes'
        // smaller batches planned it every time, 1.7 ms a call). The cached plan is the same
        // nested loop, so it is what these reads use.
        let joined = sent.contains { $0.keys.count > 1 }
        if joined { try sendInPipeline("SET LOCAL plan_cache_mode = force_generic_plan") }
        for statement in sent { try sendInPipeline(prepared: statement.name, statement.values) }
        if joined { try sendInPipeline("SET LOCAL plan_cache_mode TO DEFAULT") }
        let first = (beginning ? 1 : 0) + (joined ? 1 : 0)
        let (answers, refused) = try finishPipeline(answering: first + sent.count + (joined ? 1 : 0))
        if let refusal = unansweredRefusal ?? refused { return refusal }
        for (index, statement) in sent.enumerated() {
            guard let rows = answers[first + index] else { continue }
            let each = statement.keys.count > 1 ? BatchedReads.split(rows, into: statement.keys.count) : [rows]
            for (key, rows) in zip(statement.keys, each) { readAhead[key] = (rows, copies[key] ?? 1) }
        }
        return nil
    }

    private typealias DistinctRead = (key: ReadAheadKey, read: (sql: String, values: [SQLValue]))

    /// `reads` grouped by statement text, groups in the order of their first read.
    private static func byStatement(_ reads: [DistinctRead]) -> [[DistinctRead]] {
        var groups: [[DistinctRead]] = []
        var place: [StatementText: Int] = [:]
        for read in reads {
            if let index = place[read.key.statement] {
                groups[index].append(read)
            } else {
                place[read.key.statement] = groups.count
                groups.append([read])
            }
        }
        return groups
    }

    /// Sends a write whose answer the caller does not read, when `defersWrites`, without waiting:
    /// its answer comes with the next statement that needs one (a read, the COMMIT), in the same
    /// round trip. Refused, it aborts the transaction, and that next statement throws its error
    /// (`PGError.sentUnanswered`). Without `defersWrites`, runs it as `query` does.
    public func runUnanswered(_ sql: String, _ values: [SQLValue]) throws(PGError) {
        guard defersWrites else {
            _ = try query(sql, values)
            return
        }
        if let refusal = unansweredRefusal { throw refusal }
        try Self.refuseNUL(values)
        if coalesced?.sql == sql {
            coalesced!.rows.append(values)
            return
        }
        try sendCoalescedWrites()
        if MultiRowInsert.accepts(sql) {
            coalesced = (sql, [values])
            return
        }
        let name = try statementName(for: sql, parameterCount: values.count)
        try sendInPipeline(prepared: name, values)
        unanswered += 1
    }

    /// Sends the unanswered `INSERT`s waiting to go together (`coalesced`): their rows in as few
    /// statements as `MultiRowInsert` makes, each one unanswered write. Called before anything
    /// else is sent, so that every statement comes after the writes before it.
    func sendCoalescedWrites() throws(PGError) {
        guard let writes = coalesced else { return }
        coalesced = nil
        var rest = writes.rows[...]
        while !rest.isEmpty {
            let count = MultiRowInsert.rows(of: rest.count)
            let sql = count == 1 ? writes.sql : MultiRowInsert.text(writes.sql, rows: count)
            var values: [SQLValue] = []
            values.reserveCapacity(count * rest[rest.startIndex].count)
            for row in rest.prefix(count) { values += row }
            let name = try statementName(for: sql, parameterCount: values.count)
            try sendInPipeline(prepared: name, values)
            unanswered += 1
            rest = rest.dropFirst(count)
        }
    }

    /// Sends a prepared statement in pipeline mode (entered if need be); its answer is read by
    /// `finishPipeline`.
    func sendInPipeline(prepared name: String, _ values: [SQLValue]) throws(PGError) {
        try sendCoalescedWrites()
        try enterPipeline()
        let sent = Self.withTexts(values) { count, texts in PQsendQueryPrepared(handle, name, count, texts, nil, nil, 0) }
        guard sent == 1 else { throw lostInPipeline() }
    }

    /// Sends a statement without parameters in pipeline mode (BEGIN, COMMIT).
    func sendInPipeline(_ sql: String) throws(PGError) {
        try sendCoalescedWrites()
        try enterPipeline()
        guard PQsendQueryParams(handle, sql, 0, nil, nil, nil, nil, 0) == 1 else { throw lostInPipeline() }
    }

    private func enterPipeline() throws(PGError) {
        guard PQpipelineStatus(handle) == PQ_PIPELINE_OFF else { return }
        guard PQenterPipelineMode(handle) == 1 else {
            throw PGError(sqlState: nil, message: "cannot enter pipeline mode: \(Self.clientMessage(handle))")
        }
    }

    private func lostInPipeline() -> PGError {
        unanswered = 0
        return PGError(sqlState: nil, message: "lost the connection to PostgreSQL: \(Self.clientMessage(handle))")
    }

    /// Ends the pipeline with a sync point and reads its answers in order: first the unanswered
    /// writes' (the first refusal kept in `unansweredRefusal`), then those of the `count`
    /// statements sent after them. Returns theirs (nil for one skipped after a refusal) and the
    /// first refusal among them.
    func finishPipeline(answering count: Int) throws(PGError) -> (answers: [PGRows?], refused: PGError?) {
        let writes = unanswered
        unanswered = 0
        guard PQpipelineSync(handle) == 1 else { throw lostInPipeline() }
        var answers: [PGRows?] = []
        answers.reserveCapacity(count)
        var refused: PGError?
        for position in 0..<(writes + count) {
            var answer: PGRows?
            var failure: PGError?
            // Each statement's answer is a result, then NULL.
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                let status = PQresultStatus(result)
                if status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK {
                    answer = Self.rows(result)
                } else if status != PGRES_PIPELINE_ABORTED {
                    do throws(PGError) { try check(result) } catch { failure = error }
                }
            }
            if position < writes {
                if var failure, unansweredRefusal == nil {
                    failure.sentUnanswered = true
                    unansweredRefusal = failure
                }
            } else {
                answers.append(answer)
                if refused == nil { refused = failure }
            }
            if !isConnected { break }
        }
        while isConnected, let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        guard isConnected else { throw PGError(sqlState: nil, message: "lost the connection to PostgreSQL: \(Self.clientMessage(handle))") }
        PQexitPipelineMode(handle)
        return (answers, refused)
    }

    /// Forgets what the transaction left: reads ahead not asked for, a refusal heard (the
    /// transaction ended, committed or rolled back).
    public func transactionEnded() {
        coalesced = nil  // not sent: the transaction ended without them (a COMMIT sends them first)
        if unanswered > 0 { _ = try? finishPipeline(answering: 0) }  // before the refusal is forgotten: it may set one
        readAhead.removeAll()
        unansweredRefusal = nil
        defersWrites = false
    }

    /// Forgets the answers read ahead whose values name any of `keys` (an install just stored
    /// under them): the query that asks one of them again runs, and sees the write.
    public func forgetReadsAhead(naming keys: [String]) {
        guard !readAhead.isEmpty, !keys.isEmpty else { return }
        let stale = readAhead.keys.filter { key in
            key.values.contains { value in
                if case .text(let text) = value { keys.contains(text) } else { false }
            }
        }
        for key in stale { readAhead.removeValue(forKey: key) }
    }

    static func readAheadKey(_ sql: String, _ values: [SQLValue]) -> ReadAheadKey {
        ReadAheadKey(statement: StatementText(text: sql), values: values)
    }
}
