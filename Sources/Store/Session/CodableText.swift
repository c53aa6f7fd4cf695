import Foundation

/// JSON text columns of small Codable values written off the hot paths (consent, ad signals,
/// connection settings): keys sorted, so equal values are equal text.
package enum CodableText {
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    package static func encode<Value: Encodable>(_ value: Value) -> String {
        (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// nil (SQL NULL) for a value that says nothing.
    package static func encode<Value: Encodable>(_ value: Value, unlessEmpty isEmpty: (Value) -> Bool) -> String? {
        isEmpty(value) ? nil : encode(value)
    }

    /// What cannot be read is none.
    package static func decode<Value: Decodable>(_ type: Value.Type, _ text: String) -> Value? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
