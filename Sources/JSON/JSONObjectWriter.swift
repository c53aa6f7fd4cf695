/// One JSON object written straight into a byte buffer, for response bodies on hot paths where
/// building a `JSONValue` or running `JSONEncoder` would cost more than the rest of the answer.
/// Callers give the fields in sorted key order, so the bytes are those of the sorted serializer.
public struct JSONObjectWriter {
    private var hasFields = false

    /// Opens the object in `bytes`.
    public init(into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
    }

    /// Writes the key (and the comma before it); the caller writes the value.
    public mutating func key(_ name: StaticString, to bytes: inout [UInt8]) {
        if hasFields { bytes.append(UInt8(ascii: ",")) }
        hasFields = true
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":".utf8)
    }

    /// A string field; nothing when `value` is nil (as the synthesized `Encodable` leaves it out).
    public mutating func string(_ name: StaticString, _ value: String?, to bytes: inout [UInt8]) {
        guard let value else { return }
        key(name, to: &bytes)
        ByteText.appendJSONString(value, to: &bytes)
    }

    /// A map of strings, keys sorted; nothing when nil.
    public mutating func strings(_ name: StaticString, _ value: [String: String]?, to bytes: inout [UInt8]) {
        guard let value else { return }
        key(name, to: &bytes)
        bytes.append(UInt8(ascii: "{"))
        for (offset, field) in value.sorted(by: { $0.key < $1.key }).enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            ByteText.appendJSONString(field.key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            ByteText.appendJSONString(field.value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }

    /// Closes the object.
    public func close(_ bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "}"))
    }
}
