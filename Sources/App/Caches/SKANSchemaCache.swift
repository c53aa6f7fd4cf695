public import Attribution
import Foundation
public import StoreContracts

/// Parsed SKAN schemas by their JSON text: parsing once, not per request.
public final class SKANSchemaCache: @unchecked Sendable {
    // `schemas` is only touched under `lock`.
    private let lock = NSLock()
    private var schemas: [String: SKANSchema] = [:]

    public init() {}

    public func context(for project: Project) -> SKANStore.Context? {
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
