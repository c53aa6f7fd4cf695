import Foundation
import Gzip
import StoreContracts
import Testing

@testable import App

/// What a test reads back of an exported hour: each file's rows as the formats' own readers see
/// them (RFC 4180 CSV parsed here, NDJSON through JSONSerialization), and the manifest.
struct ExportedFiles {
    let root: String

    func bytes(_ key: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: root + "/" + key)))
    }

    func manifest(_ hour: ExportHour) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(try bytes(hour.manifestKey))) as? [String: Any])
    }

    /// The CSV's records, the header first.
    func csv(_ table: ExportTable, _ hour: ExportHour) throws -> [[String]] {
        try Self.parseCSV(String(decoding: try Gunzip.decompress(try bytes(hour.key(table: table, format: .csv))), as: UTF8.self))
    }

    func ndjson(_ table: ExportTable, _ hour: ExportHour) throws -> [[String: Any]] {
        let text = String(decoding: try Gunzip.decompress(try bytes(hour.key(table: table, format: .ndjson))), as: UTF8.self)
        return try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// RFC 4180: fields split at commas, quoted fields with doubled quotes, CRLF between records.
    static func parseCSV(_ text: String) throws -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" {
                        field.append("\"")
                        characters.removeFirst()
                    } else {
                        quoted = false
                    }
                } else {
                    field.append(character)
                }
                continue
            }
            switch character {
            case "\"": quoted = true
            case ",":
                record.append(field)
                field = ""
            case "\r\n", "\r", "\n":
                record.append(field)
                records.append(record)
                record = []
                field = ""
            default: field.append(character)
            }
        }
        #expect(!quoted && field.isEmpty && record.isEmpty, "the CSV ends with a complete record")
        return records
    }
}
