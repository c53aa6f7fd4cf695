import Foundation
import JSON

/// Typed reads of one JSON object's fields, each refusal naming the field (and where it sits).
struct FieldReader {
    let fields: [String: JSONValue]
    var context = ""

    private func wrong(_ key: String, _ expectation: String) -> PostbackRejection {
        .malformed("\(context)'\(key)' must be \(expectation)")
    }

    private func value(_ key: String) -> JSONValue? {
        guard let value = fields[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String, maxLength: Int = 64) throws -> String {
        guard let value = try optionalString(key, maxLength: maxLength) else { throw wrong(key, "present") }
        return value
    }

    func optionalString(_ key: String, maxLength: Int = 64) throws -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value, !text.isEmpty, text.utf8.count <= maxLength else {
            throw wrong(key, "a string of 1 to \(maxLength) bytes")
        }
        return text
    }

    func integer(_ key: String, in range: ClosedRange<Int64>) throws -> Int64 {
        guard let value = try optionalInteger(key, in: range) else { throw wrong(key, "present") }
        return value
    }

    func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws -> Int64? {
        guard let value = value(key) else { return nil }
        // Integers up to 2^53 are exact in a JSON number (App Store ids are ~10 digits).
        guard case .number(let number) = value, number.rounded() == number, abs(number) <= 9_007_199_254_740_992,
            range.contains(Int64(number))
        else {
            throw wrong(key, "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return Int64(number)
    }

    func bool(_ key: String) throws -> Bool {
        guard case .bool(let flag)? = value(key) else { throw wrong(key, "true or false") }
        return flag
    }

    /// 2 to 4 digits (SKAdNetwork 4's hierarchical source identifier).
    func sourceIdentifier(_ key: String) throws -> String {
        let text = try string(key, maxLength: 4)
        guard text.utf8.count >= 2, text.utf8.allSatisfy({ (48...57).contains($0) }) else { throw wrong(key, "a string of 2 to 4 digits") }
        return text
    }

    func coarse(_ key: String) throws -> SKANSchema.Coarse? {
        guard let text = try optionalString(key, maxLength: 6) else { return nil }
        guard let coarse = SKANSchema.Coarse(rawValue: text) else { throw wrong(key, "low, medium or high") }
        return coarse
    }

    func base64(_ key: String) throws -> [UInt8] {
        guard let bytes = Data(base64Encoded: try string(key, maxLength: 512)), !bytes.isEmpty else { throw wrong(key, "base64") }
        return Array(bytes)
    }
}
