/// The one JSON writer: response bodies, log lines, stored JSON text.
extension JSONValue {
    /// Compact JSON with sorted keys; whole numbers as integers; non-finite numbers as null.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        append(to: &out)
        return out
    }

    /// Appends the serialized value (see `serialized()`) to `out`.
    public func append(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number):
            if !number.isFinite {
                out.append(contentsOf: "null".utf8)
            } else if number.rounded() == number, abs(number) < 1e15 {
                ByteText.appendDecimal(Int(number), to: &out)
            } else {
                out.append(contentsOf: "\(number)".utf8)
            }
        case .string(let text): ByteText.appendJSONString(text, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (offset, item) in items.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                item.append(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (offset, field) in fields.sorted(by: { $0.key < $1.key }).enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                ByteText.appendJSONString(field.key, to: &out)
                out.append(UInt8(ascii: ":"))
                field.value.append(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
