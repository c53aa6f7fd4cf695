public import Foundation

extension HTTPRequest {
    /// Decodes the body as JSON. Every failure becomes a 400 whose message names the field and what
    /// was wrong with it ("field 'device_data.screen_width': expected a number, found a string").
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws(HTTPError) -> T {
        try JSONBody.decode(type, from: body)
    }
}

public enum JSONBody {
    /// One strict RFC 8259 reading (`JSONValueParser`), then the type decoded from the value read
    /// (`JSONValueDecoder`): no route reads its body with Foundation's more lenient decoder.
    public static func decode<T: Decodable>(_ type: T.Type, from body: [UInt8]) throws(HTTPError) -> T {
        let value = try JSONValueParser.parse(body)
        do {
            return try JSONValueDecoder.decode(T.self, from: value)
        } catch let error as DecodingError {
            throw describe(error)
        } catch let error as HTTPError {
            throw error  // a decoder's own validation (an unknown key, a bad value) already says what is wrong
        } catch {
            throw HTTPError.badRequest("request body could not be decoded", code: "invalid_json")
        }
    }

    static func describe(_ error: DecodingError) -> HTTPError {
        switch error {
        case .keyNotFound(let key, let context):
            let path = fieldPath(context.codingPath + [key])
            return HTTPError.badRequest("missing required field '\(path)'", code: "missing_field")
        case .typeMismatch(let type, let context):
            return HTTPError.badRequest("field '\(fieldPath(context.codingPath))': expected \(typeName(type))", code: "invalid_field")
        case .valueNotFound(let type, let context):
            return HTTPError.badRequest("field '\(fieldPath(context.codingPath))': expected \(typeName(type)), found null", code: "invalid_field")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return HTTPError.badRequest("request body is not valid JSON", code: "invalid_json")
            }
            return HTTPError.badRequest("field '\(fieldPath(context.codingPath))': \(context.debugDescription)", code: "invalid_field")
        @unknown default:
            return HTTPError.badRequest("request body could not be decoded", code: "invalid_json")
        }
    }

    /// `[data, device_data, screen]` → `data.device_data.screen`; array positions as `[2]`.
    static func fieldPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "(body)" : text
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type, is UInt64.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        default:
            switch String(describing: type) {
            case let name where name.hasPrefix("Dictionary"): "an object"
            case let name where name.hasPrefix("Array"): "an array"
            default: "an object"
            }
        }
    }
}

extension HTTPResponse {
    /// A JSON response for API clients: `Content-Type: application/json`, `Cache-Control: no-store`.
    public static func json(_ value: some Encodable, status: HTTPStatus = .ok, encoder: JSONEncoder = JSONEncoder()) throws -> HTTPResponse {
        HTTPResponse(status: status, headers: jsonHeaders, body: Array(try encoder.encode(value)))
    }

    /// A JSON response from bytes already encoded (e.g. a constant body built once).
    public static func json(bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: jsonHeaders, body: bytes)
    }

    public static let jsonHeaders: HTTPHeaders = ["Content-Type": "application/json", "Cache-Control": "no-store"]
}
