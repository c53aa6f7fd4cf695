import Foundation
import JSON
import StoreContracts

/// JSON text columns (arrays and string maps), written with the one JSON writer: this runs for
/// every click on the writer thread, where JSONEncoder's generality is measurable.
package enum JSONText {
    package static func encode(_ strings: [String]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(string, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Keys sorted, so equal maps are equal text.
    package static func encode(_ map: [String: String]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (index, key) in map.keys.sorted().enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            appendString(map[key]!, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A JSON string literal (the one writer's).
    static func appendString(_ text: String, to bytes: inout [UInt8]) { ByteText.appendJSONString(text, to: &bytes) }

    /// Reads an array of strings. Runs for every candidate click of every install, so the plain
    /// arrays `encode` writes are read by hand; anything else goes through JSONDecoder.
    static func decodeStrings(_ text: String) -> [String] {
        if let fast = decodeSimpleStrings(Array(text.utf8)) { return fast }
        return (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    /// `["a","b"]` with no escapes; nil for anything else.
    static func decodeSimpleStrings(_ bytes: [UInt8]) -> [String]? {
        guard bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
        var strings: [String] = []
        var index = 1
        let end = bytes.count - 1
        while index < end {
            guard bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index + 1
            var close = start
            while close < end, bytes[close] != UInt8(ascii: "\"") {
                if bytes[close] == UInt8(ascii: "\\") { return nil }
                close += 1
            }
            guard close < end else { return nil }
            strings.append(String(decoding: bytes[start..<close], as: UTF8.self))
            index = close + 1
            if index < end {
                guard bytes[index] == UInt8(ascii: ",") else { return nil }
                index += 1
            }
        }
        return strings
    }

    /// Reads a map of strings. Every link read (an install's transaction reads its link) decodes
    /// one, nearly always `{}`: that one without JSONDecoder (12,000 instructions a link).
    static func decodeMap(_ text: String) -> [String: String] {
        if text.utf8.count == 2, text == "{}" { return [:] }
        return (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }
}
