import Foundation
import HTTP
import Store

/// Linkrunner's envelope, on every response, errors included: `{"status": <http code>, "msg":
/// "<text>", "data": {...} | null}` with the same code as the HTTP status.
enum Envelope {
    static func ok(_ data: [String: JSONValue], msg: String = "success") -> HTTPResponse {
        response(status: .ok, msg: msg, data: .object(data))
    }

    static func error(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
        response(status: status, msg: message, data: .null)
    }

    /// Any error a handler throws, in the envelope: client mistakes keep their 4xx.
    static func from(_ error: any Error) -> HTTPResponse {
        switch error {
        case let error as HTTPError: return Self.error(error.status, error.message)
        case let error as StoreError:
            switch error {
            case .notFound(let message): return Self.error(.notFound, message)
            case .conflict(let message): return Self.error(.conflict, message)
            }
        default: return Self.error(.internalServerError, "the server could not complete the request")
        }
    }

    /// Written directly in the sorted key order the JSON serializer would give (data, msg, status),
    /// without building the outer object.
    private static func response(status: HTTPStatus, msg: String, data: JSONValue) -> HTTPResponse {
        var body: [UInt8] = []
        body.reserveCapacity(256)
        body.append(contentsOf: #"{"data":"#.utf8)
        data.append(to: &body)
        body.append(contentsOf: #","msg":"#.utf8)
        ByteText.appendJSONString(msg, to: &body)
        body.append(contentsOf: #","status":"#.utf8)
        ByteText.appendDecimal(status.code, to: &body)
        body.append(UInt8(ascii: "}"))
        return HTTPResponse.json(bytes: body, status: status)
    }
}

/// The decoded body of a Linkrunner request: JSON object access whose failures name the field.
struct LinkrunnerBody: Sendable {
    let fields: [String: JSONValue]

    init(_ request: HTTPRequest) throws {
        guard case .object(let fields) = try JSONValueParser.parse(request.body) else {
            throw HTTPError.badRequest("the request body must be a JSON object", code: "invalid_json")
        }
        self.fields = fields
    }

    init(fields: [String: JSONValue]) { self.fields = fields }

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

    func number(_ key: String, path: @autoclosure () -> String? = nil) throws -> Double? {
        switch fields[key] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        default: throw HTTPError.badRequest("field '\(path() ?? key)': expected a number", code: "invalid_field")
        }
    }

    func object(_ key: String, path: @autoclosure () -> String? = nil) throws -> LinkrunnerBody? {
        switch fields[key] {
        case nil, .null?: return nil
        case .object(let object)?: return LinkrunnerBody(fields: object)
        default: throw HTTPError.badRequest("field '\(path() ?? key)': expected an object", code: "invalid_field")
        }
    }

    /// The object as JSON text (for storing event data and the like).
    func json(_ key: String) throws -> String? {
        guard let object = try object(key) else { return nil }
        return String(decoding: JSONValue.object(object.fields).serialized(), as: UTF8.self)
    }
}
