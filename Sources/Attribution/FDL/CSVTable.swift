/// Comma-separated values as RFC 4180 writes them (and spreadsheets export them): fields in double
/// quotes may hold commas, line breaks and doubled quotes; lines end with CRLF or LF; a UTF-8 byte
/// order mark is skipped.
public enum CSVTable {
    public struct Malformed: Error, Sendable, Equatable {
        /// The 1-based line the problem is on.
        public let line: Int
        public let reason: String
    }

    /// The records of `bytes`, each with the line it starts on; blank lines are skipped.
    public static func records(_ bytes: [UInt8]) throws(Malformed) -> [(line: Int, fields: [String])] {
        var records: [(line: Int, fields: [String])] = []
        var reader = Reader()
        do {
            try reader.feed(bytes) { records.append(($0, $1)) }
            try reader.finish { records.append(($0, $1)) }
        } catch let malformed as Malformed {
            throw malformed
        } catch {
            throw Malformed(line: 0, reason: "\(error)")  // the closures above throw nothing else
        }
        return records
    }

    /// The same reading fed a piece at a time (a file read in chunks, so that a million-row export
    /// is never whole in memory): each record is handed over as soon as its line ends.
    public struct Reader: Sendable {
        private var fields: [String] = []
        private var field: [UInt8] = []
        private var line = 1
        private var recordLine = 1
        private var quoted = false
        private var fieldStarted = false
        /// A quote seen last in a quoted field: a doubled quote if the next byte is one too.
        private var pendingQuote = false
        private var previous: UInt8 = 0
        private var atStart = true
        private var bomBytes: [UInt8] = []

        public init() {}

        public mutating func feed(
            _ bytes: some Collection<UInt8>, _ record: (_ line: Int, _ fields: [String]) throws -> Void
        ) throws {
            for byte in bytes {
                if atStart {
                    // A byte order mark before the first field; anything else starts the table.
                    let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                    if byte == bom[bomBytes.count] {
                        bomBytes.append(byte)
                        if bomBytes.count == 3 { atStart = false }
                        continue
                    }
                    atStart = false
                    let held = bomBytes
                    bomBytes = []
                    for earlier in held { try take(earlier, record) }
                }
                try take(byte, record)
            }
        }

        /// The last record, when the table does not end with a line break.
        public mutating func finish(_ record: (_ line: Int, _ fields: [String]) throws -> Void) throws {
            if atStart, !bomBytes.isEmpty {
                atStart = false
                let held = bomBytes
                bomBytes = []
                for byte in held { try take(byte, record) }
            }
            if pendingQuote {
                pendingQuote = false
                quoted = false
            }
            if quoted { throw Malformed(line: recordLine, reason: "a quoted field is never closed") }
            if !field.isEmpty || !fields.isEmpty || fieldStarted { try endRecord(record) }
        }

        private mutating func take(_ byte: UInt8, _ record: (Int, [String]) throws -> Void) throws {
            defer { previous = byte }
            if pendingQuote {
                pendingQuote = false
                if byte == UInt8(ascii: "\"") {
                    field.append(byte)  // a doubled quote inside the quoted field
                    return
                }
                quoted = false  // the quote closed the field; this byte follows it
            }
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    pendingQuote = true
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
                return
            }
            switch byte {
            case UInt8(ascii: "\""):
                guard !fieldStarted, field.isEmpty else {
                    throw Malformed(line: line, reason: "a quote inside an unquoted field (quote the whole field and double its quotes)")
                }
                quoted = true
                fieldStarted = true
            case UInt8(ascii: ","):
                endField()
            case UInt8(ascii: "\r"):
                break  // CRLF: the LF ends the record
            case UInt8(ascii: "\n"):
                try endRecord(record)
                line += 1
                recordLine = line
            default:
                if fieldStarted, previous == UInt8(ascii: "\"") { throw Malformed(line: line, reason: "text after a closing quote") }
                field.append(byte)
            }
        }

        private mutating func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldStarted = false
        }

        private mutating func endRecord(_ record: (Int, [String]) throws -> Void) throws {
            endField()
            defer { fields.removeAll(keepingCapacity: true) }
            if !(fields.count == 1 && fields[0].isEmpty) { try record(recordLine, fields) }
        }
    }
}
