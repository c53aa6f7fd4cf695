/// Header fields in the order received or added. Names compare case-insensitively
/// (RFC 9110 §5.1); values are kept as sent, without surrounding whitespace.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public typealias Field = (name: String, value: String)
    public private(set) var fields: [Field] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { (name: $0.0, value: $0.1) }
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        for field in fields where field.name.equalsIgnoringASCIICase(name) { return field.value }
        return nil
    }

    public func values(for name: String) -> [String] {
        fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces every value of `name` with one.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
    }

    /// Whether a comma-separated list header (e.g. `Connection`) holds `token`, case-insensitively.
    public func listContains(_ name: String, token: String) -> Bool {
        for value in values(for: name) {
            for element in value.split(separator: ",") {
                if element.trimmingOWS().equalsIgnoringASCIICase(token) { return true }
            }
        }
        return false
    }
}

extension StringProtocol {
    /// ASCII case-insensitive equality, without allocating lowercased copies. Lengths first: a
    /// header lookup compares its name with every field of the request, and most differ in length.
    /// Inlinable, as the next one: called from every module on the request path, where an
    /// unspecialised generic call walked both strings through protocol witnesses.
    @inlinable
    public func equalsIgnoringASCIICase(_ other: some StringProtocol) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var lhs = utf8.makeIterator()
        var rhs = other.utf8.makeIterator()
        while true {
            switch (lhs.next(), rhs.next()) {
            case (nil, nil): return true
            case let (a?, b?):
                if a == b { continue }
                if a | 0x20 == b | 0x20, (a | 0x20) >= 0x61, (a | 0x20) <= 0x7A { continue }
                return false
            default: return false
            }
        }
    }

    /// Drops optional whitespace (SP / HTAB, RFC 9110 §5.6.3) at both ends. Over the UTF-8 bytes:
    /// comparing `Character`s walked grapheme clusters for what are ASCII tests.
    @inlinable
    public func trimmingOWS() -> Substring {
        let text = Substring(self)
        let bytes = text.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start = bytes.index(after: start) }
        while end > start {
            let before = bytes.index(before: end)
            guard bytes[before] == 0x20 || bytes[before] == 0x09 else { break }
            end = before
        }
        return text[start..<end]
    }
}
