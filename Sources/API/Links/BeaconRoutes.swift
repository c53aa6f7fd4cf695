import App
import Attribution
import HTTP
import StoreContracts

/// `POST /c/{clickId}` (sendBeacon, JSON in any content type) and `GET /c/{clickId}?sw=&sh=…`
/// (the image fallback): browser signals for a click made less than ten minutes ago → 204.
enum BeaconRoutes {
    static let maximumAge: Int64 = 10 * 60

    /// `POST /c/:clickId`
    static func beaconJSON(_ services: Services) -> RouteHandler {
        return .deferred { request, done in
            store(request, signals: { try signals(fromJSON: request.body) }, services: services, done: done)
        }
    }

    /// `GET /c/:clickId`
    static func beaconQuery(_ services: Services) -> RouteHandler {
        return .deferred { request, done in
            store(request, signals: { try signals(fromQuery: request) }, services: services, done: done)
        }
    }

    static func store(
        _ request: HTTPRequest, signals parse: () throws -> BrowserSignals, services: Services,
        done: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) {
        let clickID = request.pathParameters["clickId"] ?? ""
        guard Identifiers.isUUID(clickID) else {
            return done(.failure(HTTPError.notFound("no click \(clickID)")))
        }
        let signals: BrowserSignals
        do {
            signals = try parse()
            let problems = signals.validate()
            if !problems.isEmpty {
                throw HTTPError(.unprocessableContent, code: "invalid_field", message: problems.map(\.description).joined(separator: "; "))
            }
        } catch {
            return done(.failure(error))
        }
        services.app.clicks.addBrowserSignals(
            signals, clickID: clickID.lowercased(), maximumAgeSeconds: maximumAge,
            delivery: request.writeDelivery
        ) { result in
            switch result {
            case .success(true): done(.success(HTTPResponse(status: .noContent, headers: ["Cache-Control": "no-store"])))
            case .success(false): done(.failure(HTTPError.notFound("no click \(clickID) in the last 10 minutes")))
            case .failure(let error): done(.failure(error))
            }
        }
    }

    static func signals(fromJSON body: [UInt8]) throws -> BrowserSignals {
        guard case .object(let object) = try JSONValueParser.parse(body) else {
            throw HTTPError.badRequest("the beacon body must be a JSON object", code: "invalid_json")
        }
        var signals = BrowserSignals()
        signals.screenWidth = try number(object["sw"], "sw")
        signals.screenHeight = try number(object["sh"], "sh")
        signals.pixelRatio = try number(object["dpr"], "dpr")
        signals.timezone = try string(object["tz"], "tz")
        signals.javascriptOffset = try integer(object["tzo"], "tzo")
        switch object["langs"] {
        case nil, .null?: break
        case .array(let items)?:
            signals.languages = try items.enumerated().map { index, item in
                guard case .string(let tag) = item else {
                    throw HTTPError.badRequest("field 'langs[\(index)]': expected a string", code: "invalid_field")
                }
                return tag
            }
        case .string(let text)?: signals.languages = text.split(separator: ",").map(String.init)
        default: throw HTTPError.badRequest("field 'langs': expected an array of strings", code: "invalid_field")
        }
        return signals
    }

    static func signals(fromQuery request: HTTPRequest) throws -> BrowserSignals {
        var values: [String: String] = [:]
        for item in request.queryItems where values[item.name] == nil { values[item.name] = item.value }
        func parsed<T>(_ key: String, _ convert: (String) -> T?) throws -> T? {
            guard let text = values[key], !text.isEmpty else { return nil }
            guard let value = convert(text) else { throw HTTPError.badRequest("parameter '\(key)': not a valid value", code: "invalid_field") }
            return value
        }
        var signals = BrowserSignals()
        signals.screenWidth = try parsed("sw") { Double($0) }
        signals.screenHeight = try parsed("sh") { Double($0) }
        signals.pixelRatio = try parsed("dpr") { Double($0) }
        signals.timezone = values["tz"].flatMap { $0.isEmpty ? nil : $0 }
        signals.javascriptOffset = try parsed("tzo") { Int($0) }
        signals.languages = values["langs"].flatMap { $0.isEmpty ? nil : $0.split(separator: ",").map(String.init) }
        return signals
    }

    private static func number(_ value: JSONValue?, _ key: String) throws -> Double? {
        switch value {
        case nil, .null?: return nil
        case .number(let number)?: return number
        default: throw HTTPError.badRequest("field '\(key)': expected a number", code: "invalid_field")
        }
    }

    private static func integer(_ value: JSONValue?, _ key: String) throws -> Int? {
        guard let number = try number(value, key) else { return nil }
        guard number.rounded() == number, abs(number) < 100_000 else {
            throw HTTPError.badRequest("field '\(key)': expected an integer", code: "invalid_field")
        }
        return Int(number)
    }

    private static func string(_ value: JSONValue?, _ key: String) throws -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw HTTPError.badRequest("field '\(key)': expected a string", code: "invalid_field")
        }
    }
}
