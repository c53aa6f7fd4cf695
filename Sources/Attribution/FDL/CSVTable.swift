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
        var fields: [String] = []
        var field: [UInt8] = []
        var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        var recordLine = 1
        var quoted = false
        var fieldStarted = false
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            fieldStarted = false
        }
        func endRecord() {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty) { records.append((recordLine, fields)) }
            fields.removeAll(keepingCapacity: true)
        }
        while index < bytes.count {
            let byte = bytes[index]
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
            } else {
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
                    endRecord()
                    line += 1
                    recordLine = line
                default:
                    if fieldStarted && !field.isEmpty && bytes[index - 1] == UInt8(ascii: "\"") {
                        throw Malformed(line: line, reason: "text after a closing quote")
                    }
                    if fieldStarted && field.isEmpty && index > 0 && bytes[index - 1] == UInt8(ascii: "\"") {
                        throw Malformed(line: line, reason: "text after a closing quote")
                    }
                    field.append(byte)
                }
            }
            index += 1
        }
        if quoted { throw Malformed(line: recordLine, reason: "a quoted field is never closed") }
        if !field.isEmpty || !fields.isEmpty || fieldStarted { endRecord() }
        return records
    }
}
