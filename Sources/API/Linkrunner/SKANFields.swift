import Attribution
import Foundation
import HTTP
import Store

/// Parsed SKAN schemas by their JSON text: parsing once, not per request.
public final class SKANSchemaCache: @unchecked Sendable {
    // `schemas` is only touched under `lock`.
    private let lock = NSLock()
    private var schemas: [String: SKANSchema] = [:]

    public init() {}

    func context(for project: Project) -> SKANStore.Context? {
        guard let text = project.settings.skanSchema else { return nil }
        lock.lock()
        defer { lock.unlock() }
        if let schema = schemas[text] { return SKANStore.Context(schema: schema) }
        // Stored schemas were validated when set; one that no longer parses sends no SKAN keys.
        guard let schema = try? SKANSchemaParser.parse(json: text) else { return nil }
        if schemas.count > 1000 { schemas.removeAll() }
        schemas[text] = schema
        return SKANStore.Context(schema: schema)
    }
}

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
