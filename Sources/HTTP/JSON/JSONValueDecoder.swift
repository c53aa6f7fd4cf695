/// Decodes `Decodable` types from a `JSONValue` that `JSONValueParser` read, so every route takes
/// exactly one strict reading of its body (Foundation's `JSONDecoder` accepted trailing commas, a
/// BOM, UTF-16 and invalid UTF-8, and parsing twice cost a second pass). Failures are the standard
/// `DecodingError`s with their coding paths, which `JSONBody.describe` turns into messages naming
/// the field. Numbers convert as Foundation's decoder does: to an integer type only when whole and
/// in range.
struct JSONValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, codingPath: [any CodingKey] = []) {
        self.value = value
        self.codingPath = codingPath
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONValueDecoder(value).decodeValue(type)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let fields) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(Keyed<Key>(fields: fields, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([JSONValue].self) }
        return Unkeyed(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ type: Any.Type) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, .init(codingPath: codingPath, debugDescription: "found null"))
        }
        return .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "found \(value.kind)"))
    }

    /// `JSONValue` itself is returned as read: no cascade of attempts.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self { return value as! T }
        return try T(from: self)
    }

    fileprivate func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let number) = value else { throw mismatch(type) }
        guard number.rounded() == number, let exact = T(exactly: number) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(number) does not fit in \(type)"))
        }
        return exact
    }
}

extension JSONValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(type) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw mismatch(type) }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(type) }
        return number
    }

    func decode(_ type: Float.Type) throws -> Float { Float(try decode(Double.self)) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

extension JSONValueDecoder {
    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let fields: [String: JSONValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

        private func child(_ key: Key) throws -> JSONValueDecoder {
            guard let value = fields[key.stringValue] else {
                throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for '\(key.stringValue)'"))
            }
            return JSONValueDecoder(value, codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { try child(key).decodeNil() }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

        // The primitive overloads the protocol requires all route to the generic one above.
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }

        /// Absent and null are both "no value", as with Foundation's decoder.
        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let value = fields[key.stringValue], value != .null else { return nil }
            return try JSONValueDecoder(value, codingPath: codingPath + [key]).decodeValue(type)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try child(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }

        func superDecoder() throws -> any Decoder { JSONValueDecoder(.object(fields), codingPath: codingPath) }

        func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        let items: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        init(items: [JSONValue], codingPath: [any CodingKey]) {
            self.items = items
            self.codingPath = codingPath
        }

        var count: Int? { items.count }
        var isAtEnd: Bool { currentIndex >= items.count }

        private mutating func next() throws -> JSONValueDecoder {
            let key = AnyCodingKey(intValue: currentIndex)!
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(JSONValue.self, .init(codingPath: codingPath + [key], debugDescription: "the array has ended"))
            }
            defer { currentIndex += 1 }
            return JSONValueDecoder(items[currentIndex], codingPath: codingPath + [key])
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd, items[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            try next().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

        mutating func superDecoder() throws -> any Decoder { try next() }
    }
}

extension JSONValue {
    /// What a value is, for messages ("found a string").
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
