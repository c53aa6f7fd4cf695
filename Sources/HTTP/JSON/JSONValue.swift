/// Any JSON value, for payloads whose shape is the client's (event data, SKAN schemas).
public enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // Whole numbers go out as integers (`63`, not `63.0`), as strict decoders expect.
            if value.rounded() == value, abs(value) < 1e15 { try container.encode(Int64(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// A coding key for any name: used to list the keys a client actually sent.
public struct AnyCodingKey: CodingKey, Hashable {
    public let stringValue: String
    public let intValue: Int?
    public init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    public init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
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
