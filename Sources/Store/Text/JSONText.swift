import Foundation

/// JSON text columns (arrays and string maps). Written by hand: this runs for every click on the
/// writer thread, where JSONEncoder's generality is measurable.
enum JSONText {
    static func encode(_ strings: [String]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        for (index, string) in strings.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(string, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Keys sorted, so equal maps are equal text.
    static func encode(_ map: [String: String]) -> String {
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

    /// A JSON string literal (RFC 8259 §7).
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0..<0x20: bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

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

    static func decodeMap(_ text: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }
}
