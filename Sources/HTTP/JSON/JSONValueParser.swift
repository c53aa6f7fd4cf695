/// A strict RFC 8259 parser straight into `JSONValue`, for payloads whose shape is the client's.
/// Strict means: UTF-8 only and valid (§8.1; a malformed sequence is refused, never replaced by
/// U+FFFD, which would make two distinct ids equal), no byte order mark (§8.1), no trailing commas,
/// nothing after the value. Every route reads its body through this parser (`JSONBody.decode`
/// decodes types from the value it reads, through `JSONValueDecoder`), so all accept the same JSON.
/// Faster than decoding `JSONValue` through JSONDecoder (no failed-type cascade per value), and
/// bounded: nesting deeper than `maxDepth` is refused instead of exhausting the stack.
public struct JSONValueParser {
    public static let maxDepth = 64

    /// The body's bytes, borrowed for the parse: reading an array held in a struct retained and
    /// released its buffer around slices, which was a quarter of the parse.
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    public static func parse(_ body: [UInt8]) throws(HTTPError) -> JSONValue {
        let parsed = body.withUnsafeBufferPointer { bytes -> Result<JSONValue, HTTPError> in
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                return .failure(
                    HTTPError.badRequest("request body is not valid JSON: a byte order mark is not allowed (RFC 8259 §8.1)", code: "invalid_json"))
            }
            if let offset = UTF8Validation.firstInvalidByte(bytes) {
                return .failure(HTTPError.badRequest("request body is not valid JSON: invalid UTF-8 at byte \(offset)", code: "invalid_json"))
            }
            var parser = JSONValueParser(bytes)
            parser.skipWhitespace()
            guard parser.index < bytes.count else {
                return .failure(HTTPError.badRequest("request body is empty; a JSON object is expected", code: "invalid_json"))
            }
            do throws(HTTPError) {
                let value = try parser.value(depth: 0)
                parser.skipWhitespace()
                guard parser.index == bytes.count else { throw parser.failure("unexpected data after the JSON value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try parsed.get()
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private func failure(_ reason: String) -> HTTPError {
        HTTPError.badRequest("request body is not valid JSON: \(reason) at byte \(index)", code: "invalid_json")
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 { index += 1 }
    }

    private mutating func value(depth: Int) throws(HTTPError) -> JSONValue {
        guard depth < Self.maxDepth else { throw failure("nested deeper than \(Self.maxDepth) levels") }
        guard index < bytes.count else { throw failure("unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default: return .number(try number())
        }
    }

    private mutating func literal(_ word: StaticString) throws(HTTPError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected end") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw failure("invalid literal") }
        index += count
    }

    private mutating func object(depth: Int) throws(HTTPError) -> JSONValue {
        index += 1
        // Room for a typical client object up front: growing rehashes every key so far.
        var fields: [String: JSONValue] = Dictionary(minimumCapacity: 12)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(fields)
        }
        while true {
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { throw failure("trailing comma before '}'") }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            // A repeated key has no agreed meaning (RFC 8259 §4): two readers of one body could
            // each take another value. Refused, named.
            guard fields.updateValue(try value(depth: depth + 1), forKey: key) == nil else { throw failure("duplicate key '\(key)'") }
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(fields)
            }
            throw failure("expected ',' or '}'")
        }
    }

    private mutating func array(depth: Int) throws(HTTPError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { throw failure("trailing comma before ']'") }
            items.append(try value(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            throw failure("expected ',' or ']'")
        }
    }

    private mutating func string() throws(HTTPError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 { index += 1 }
        guard index < bytes.count else { throw failure("unterminated string") }
        if bytes[index] == UInt8(ascii: "\"") {
            defer { index += 1 }
            return text(start..<index)
        }
        var out = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: out, as: UTF8.self)
            }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            if byte != UInt8(ascii: "\\") {
                out.append(byte)
                index += 1
                continue
            }
            guard index + 1 < bytes.count else { throw failure("unterminated escape") }
            let escape = bytes[index + 1]
            index += 2
            switch escape {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    // A high surrogate must be followed by an escaped low one.
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw failure("lone surrogate")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("lone surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw failure("lone surrogate")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid escape") }
                out.append(contentsOf: Array(String(Character(unicode)).utf8))
            default:
                throw failure("invalid escape")
            }
        }
        throw failure("unterminated string")
    }

    private mutating func hex4() throws(HTTPError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = PercentDecoding.hexValue(bytes[index + offset]) else { throw failure("invalid \\u escape") }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }

    private mutating func number() throws(HTTPError) -> Double {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        // int = zero / ( digit1-9 *DIGIT )
        guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else { throw failure("invalid value") }
        if bytes[index] == 0x30 { index += 1 } else { while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 } }
        let integerEnd = index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let digits = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > digits else { throw failure("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            guard index > digits else { throw failure("invalid number") }
        }
        // Whole numbers of up to 15 digits are exact in a Double: no text conversion needed.
        if index == integerEnd, index - start <= 15 {
            var magnitude = 0
            for byte in bytes[start..<index] where byte != UInt8(ascii: "-") { magnitude = magnitude * 10 + Int(byte - 0x30) }
            return bytes[start] == UInt8(ascii: "-") ? -Double(magnitude) : Double(magnitude)
        }
        guard let value = Double(text(start..<index)), value.isFinite else {
            throw failure("number out of range")
        }
        return value
    }
}
