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

    /// Drops optional whitespace (SP / HTAB, RFC 9110 §5.6.3) at both ends.
    public func trimmingOWS() -> Substring {
        let scalars = Substring(self)
        var start = scalars.startIndex
        var end = scalars.endIndex
        while start < end, scalars[start] == " " || scalars[start] == "\t" { start = scalars.index(after: start) }
        while end > start {
            let before = scalars.index(before: end)
            guard scalars[before] == " " || scalars[before] == "\t" else { break }
            end = before
        }
        return scalars[start..<end]
    }
}
