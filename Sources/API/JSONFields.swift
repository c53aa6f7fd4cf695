import HTTP

/// A request body's JSON object, read field by field with errors that name the field (both APIs).
/// Parsed by `JSONValueParser`, several times faster than Foundation's `JSONDecoder` on these bodies.
struct JSONFields: Sendable {
    let fields: [String: JSONValue]

    init(_ request: HTTPRequest) throws {
        guard case .object(let fields) = try JSONValueParser.parse(request.body) else {
            throw HTTPError.badRequest("the request body must be a JSON object", code: "invalid_json")
        }
        self.fields = fields
    }

    init(fields: [String: JSONValue]) { self.fields = fields }

    /// The request's object, refused (422 naming the first, in order) when it has a key not in
    /// `known`: the admin API's bodies never drop a misspelt field silently.
    init(_ request: HTTPRequest, known: Set<String>) throws {
        try self.init(request)
        if let unknown = fields.keys.sorted().first(where: { !known.contains($0) }) {
            throw HTTPError(.unprocessableContent, code: "unknown_field", message: "unknown field '\(unknown.prefix(64))'")
        }
    }

    // `path` is only formatted for an error message, hence the autoclosures.
    func string(_ key: String, path: @autoclosure () -> String? = nil, maxLength: Int = 1024) throws -> String? {
        switch fields[key] {
        case nil, .null?: return nil
        case .string(let text)?:
            // Characters never outnumber UTF-8 bytes: count them only when the bytes are too many.
            guard text.utf8.count <= maxLength || text.count <= maxLength else {
                throw HTTPError.invalidField(path() ?? key, "must be at most \(maxLength) characters")
            }
            return text
        default: throw HTTPError.badRequest("field '\(path() ?? key)': expected a string", code: "invalid_field")
        }
    }

    func requiredString(_ key: String, maxLength: Int = 1024) throws -> String {
        guard let text = try string(key, maxLength: maxLength), !text.isEmpty else {
            throw HTTPError.badRequest("missing required field '\(key)'", code: "missing_field")
        }
        return text
    }

    /// Strings or numbers (user ids arrive as either), as text.
    func identifier(_ key: String) throws -> String? {
        switch fields[key] {
        case .number(let number)? where number.rounded() == number && abs(number) < 1e15: return String(Int64(number))
        default: return try string(key, maxLength: 256)
        }
    }

    /// A money amount: a finite number below 10^12 in size, as payments have always been held to.
    func amount(_ key: String, path: @autoclosure () -> String? = nil) throws -> Double? {
        guard let value = try number(key, path: path()) else { return nil }
        guard Self.isPlausibleAmount(value) else { throw HTTPError.invalidField(path() ?? key, "must be a finite number below 10^12") }
        return value
    }

    static func isPlausibleAmount(_ value: Double) -> Bool { value.isFinite && abs(value) < 1e12 }

    func number(_ key: String, path: @autoclosure () -> String? = nil) throws -> Double? {
        switch fields[key] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        default: throw HTTPError.badRequest("field '\(path() ?? key)': expected a number", code: "invalid_field")
        }
    }

    /// A whole number (a JSON number without a fraction, within Int's range).
    func integer(_ key: String) throws -> Int? {
        guard let value = try number(key) else { return nil }
        guard value.rounded() == value, abs(value) < 1e15 else {
            throw HTTPError.badRequest("field '\(key)': expected an integer", code: "invalid_field")
        }
        return Int(value)
    }

    func bool(_ key: String) throws -> Bool? {
        switch fields[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw HTTPError.badRequest("field '\(key)': expected true or false", code: "invalid_field")
        }
    }

    func object(_ key: String, path: @autoclosure () -> String? = nil) throws -> JSONFields? {
        switch fields[key] {
        case nil, .null?: return nil
        case .object(let object)?: return JSONFields(fields: object)
        default: throw HTTPError.badRequest("field '\(path() ?? key)': expected an object", code: "invalid_field")
        }
    }

    /// The object as JSON text (for storing event data and the like).
    func json(_ key: String) throws -> String? {
        guard let object = try object(key) else { return nil }
        return String(decoding: JSONValue.object(object.fields).serialized(), as: UTF8.self)
    }
}
