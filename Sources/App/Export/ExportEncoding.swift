import JSON
public import StoreContracts

#if canImport(Glibc)
    import Glibc
#endif

/// The export's two file formats, a row at a time into a byte buffer: gzip CSV (RFC 4180: a header
/// row, CRLF line ends, a field quoted when it holds a comma, quote or line break; an empty
/// field is NULL, `""` an empty string) and gzip NDJSON (one JSON object per line, every column
/// present, NULL as `null`). Times are ISO 8601 UTC with milliseconds in both.
public enum ExportEncoding {
    public static func csvHeader(_ table: ExportTable, into buffer: inout [UInt8]) {
        for (index, column) in table.columns.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.append(contentsOf: column.name.utf8)
        }
        buffer.append(contentsOf: [0x0D, 0x0A])
    }

    public static func csvRow(_ values: [ExportValue], of table: ExportTable, into buffer: inout [UInt8]) {
        let columns = table.columns
        for index in values.indices {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            switch (values[index], columns[index].kind) {
            case (.null, _): break
            case (.integer(let value), .boolean): buffer.append(contentsOf: (value != 0 ? "true" : "false").utf8)
            case (.integer(let value), .timestamp): appendTime(value, into: &buffer)
            case (.integer(let value), _): buffer.append(contentsOf: String(value).utf8)
            case (.real(let value), _): appendReal(value, into: &buffer)
            case (.text(let text), _): appendCSVField(text, into: &buffer)
            }
        }
        buffer.append(contentsOf: [0x0D, 0x0A])
    }

    public static func ndjsonRow(_ values: [ExportValue], of table: ExportTable, into buffer: inout [UInt8]) {
        let columns = table.columns
        buffer.append(UInt8(ascii: "{"))
        for index in values.indices {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            ByteText.appendJSONString(columns[index].name, to: &buffer)
            buffer.append(UInt8(ascii: ":"))
            switch (values[index], columns[index].kind) {
            case (.null, _): buffer.append(contentsOf: "null".utf8)
            case (.integer(let value), .boolean): buffer.append(contentsOf: (value != 0 ? "true" : "false").utf8)
            case (.integer(let value), .timestamp):
                buffer.append(UInt8(ascii: "\""))
                appendTime(value, into: &buffer)
                buffer.append(UInt8(ascii: "\""))
            case (.integer(let value), _): buffer.append(contentsOf: String(value).utf8)
            case (.real(let value), _):
                if value.isFinite { appendReal(value, into: &buffer) } else { buffer.append(contentsOf: "null".utf8) }
            case (.text(let text), .json) where looksLikeJSONDocument(text): buffer.append(contentsOf: text.utf8)
            case (.text(let text), _): ByteText.appendJSONString(text, to: &buffer)
            }
        }
        buffer.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
    }

    /// The JSON columns hold objects and arrays the server wrote; anything else (a hand edit) is
    /// written as a string, so every line stays valid JSON.
    private static func looksLikeJSONDocument(_ text: String) -> Bool {
        guard let first = text.utf8.first, let last = text.utf8.last else { return false }
        return (first == UInt8(ascii: "{") && last == UInt8(ascii: "}")) || (first == UInt8(ascii: "[") && last == UInt8(ascii: "]"))
    }

    private static func appendReal(_ value: Double, into buffer: inout [UInt8]) {
        if value.rounded() == value, abs(value) < 1e15 {
            buffer.append(contentsOf: String(Int64(value)).utf8)
        } else {
            buffer.append(contentsOf: value.description.utf8)
        }
    }

    private static func appendCSVField(_ text: String, into buffer: inout [UInt8]) {
        let needsQuotes =
            text.isEmpty
            || text.utf8.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }
        guard needsQuotes else { return buffer.append(contentsOf: text.utf8) }
        buffer.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") { buffer.append(byte) }
            buffer.append(byte)
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// `2026-12-04T01:02:03.456Z`. A stored time outside years 0001–9999 (a hand edit) is written
    /// at the nearest end of that range, never trapping.
    static func appendTime(_ stored: Int64, into buffer: inout [UInt8]) {
        let milliseconds = min(max(stored, -62_135_596_800_000), 253_402_300_799_999)
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = Int32(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func put(_ value: Int32, width: Int) {
            let start = buffer.count
            buffer.append(contentsOf: repeatElement(0x30, count: width))
            var rest = max(0, value)
            for index in stride(from: start + width - 1, through: start, by: -1) {
                buffer[index] = 0x30 + UInt8(rest % 10)
                rest /= 10
            }
        }
        put(parts.tm_year + 1900, width: 4)
        buffer.append(UInt8(ascii: "-"))
        put(parts.tm_mon + 1, width: 2)
        buffer.append(UInt8(ascii: "-"))
        put(parts.tm_mday, width: 2)
        buffer.append(UInt8(ascii: "T"))
        put(parts.tm_hour, width: 2)
        buffer.append(UInt8(ascii: ":"))
        put(parts.tm_min, width: 2)
        buffer.append(UInt8(ascii: ":"))
        put(parts.tm_sec, width: 2)
        buffer.append(UInt8(ascii: "."))
        put(fraction, width: 3)
        buffer.append(UInt8(ascii: "Z"))
    }
}
