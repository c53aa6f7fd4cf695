import Attribution
import HTTP

enum SKANFields {
    /// All three keys, or none (linkrunner-api.md, "SKAdNetwork fields"): the fine value a JSON
    /// integer, the coarse value a lower-case string, the lock a boolean.
    static func add(_ values: SKANValues?, to data: inout [String: JSONValue]) {
        guard let values else { return }
        data["fine_conversion_value"] = .number(Double(values.fine))
        data["coarse_conversion_value"] = .string(values.coarse.rawValue)
        data["lock_postback"] = .bool(values.lock)
    }
}
