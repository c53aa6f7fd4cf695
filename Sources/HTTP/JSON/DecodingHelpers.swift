/// A coding key for any name: used to list the keys a client actually sent.
public struct AnyCodingKey: CodingKey, Hashable {
    public let stringValue: String
    public let intValue: Int?
    public init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }
    public init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws a 422 naming the first key of this object that is not in `known` (catches typos in
    /// operator payloads instead of silently ignoring them).
    public func rejectUnknownKeys(_ known: Set<String>) throws {
        let container = try container(keyedBy: AnyCodingKey.self)
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) {
            let path = JSONBody.fieldPath(codingPath + [AnyCodingKey(stringValue: unknown)])
            throw HTTPError(.unprocessableContent, code: "unknown_field", message: "unknown field '\(path)'")
        }
    }
}

/// A field of a partial update: left out, explicitly null, or set.
public enum Patch<Value: Sendable>: Sendable {
    case absent
    case null
    case value(Value)

    public func apply(to current: Value?) -> Value? {
        switch self {
        case .absent: current
        case .null: nil
        case .value(let value): value
        }
    }
}

extension KeyedDecodingContainer {
    public func decodePatch<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> Patch<T> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(T.self, forKey: key))
    }
}
