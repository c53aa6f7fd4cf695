import App
import Attribution
import Foundation
import HTTP
import JSON
import StoreContracts

/// `POST /v1/shortLinks?key=<API key>`: Firebase Dynamic Links' REST API, in Google's shapes
/// ("Create Dynamic Links with the REST API", the Short Links API reference), so that a backend
/// that made FDL short links changes only its base URL. The key is a project API key; the link's
/// domain must be one of that project's.
enum FDLShortLinkRoutes {
    /// An error in Google's shape: `{"error": {"code", "message", "status"}}`.
    struct Failure: Error {
        let code: Int
        let status: String
        let message: String

        static func invalid(_ message: String) -> Failure { Failure(code: 400, status: "INVALID_ARGUMENT", message: message) }

        var response: HTTPResponse {
            let body = JSONValue.object([
                "error": .object(["code": .number(Double(code)), "message": .string(message), "status": .string(status)])
            ])
            return HTTPResponse(
                status: code == 409 ? .conflict : code == 403 ? .forbidden : .badRequest,
                headers: ["Content-Type": "application/json; charset=UTF-8", "Cache-Control": "no-store"],
                body: body.serialized())
        }
    }

    static func create(_ services: Services) -> RouteHandler {
        .sync { request in
            do {
                return try shortLink(request, services: services)
            } catch let failure as Failure {
                return failure.response
            } catch let error as HTTPError {
                return Failure.invalid(error.message).response
            } catch AppError.invalid(let problems) {
                return Failure.invalid(problems.map(\.description).joined(separator: "; ")).response
            }
        }
    }

    static func shortLink(_ request: HTTPRequest, services: Services) throws -> HTTPResponse {
        // Google's answers: no key is 403, a wrong one 400.
        guard let key = request.queryValue("key"), !key.isEmpty else {
            throw Failure(code: 403, status: "PERMISSION_DENIED", message: "The request is missing a valid API key.")
        }
        guard let project = try services.app.projects.project(forAPIKey: key) else {
            throw Failure.invalid("API key not valid. Please pass a valid API key.")
        }
        let body: [String: JSONValue]
        do {
            guard case .object(let object) = try JSONBody.decode(JSONValue.self, from: request.body) else {
                throw Failure.invalid("the body must be a JSON object")
            }
            body = object
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure.invalid("Invalid JSON payload received. \(error)")
        }
        for name in body.keys where !["longDynamicLink", "dynamicLinkInfo", "suffix"].contains(name) {
            throw Failure.invalid("Invalid JSON payload received. Unknown name \"\(name.prefix(characters: 64))\"")
        }
        var warnings: [JSONValue] = []
        let (domain, parameters): (String, [String: String])
        switch (body["longDynamicLink"], body["dynamicLinkInfo"]) {
        case (.string(let long), nil): (domain, parameters) = try longLink(long, warnings: &warnings)
        case (nil, .object(let info)): (domain, parameters) = try linkInfo(info)
        case (nil, nil): throw Failure.invalid("longDynamicLink or dynamicLinkInfo is required")
        default: throw Failure.invalid("send either longDynamicLink (a string) or dynamicLinkInfo (an object), not both")
        }
        guard let claim = try services.app.domains.claim(ofHost: domain), claim.projectID == project.id else {
            throw Failure.invalid("Your project does not own Dynamic Links domain: https://\(domain.prefix(characters: 253))")
        }
        let options: FDLOptions
        switch FDLOptions.parse(parameters) {
        case .success(let parsed): options = parsed
        case .failure(let refusal): throw Failure.invalid("\(refusal.problem.key): \(refusal.problem.message)")
        }
        if let (name, problem) = try LongLinkRoutes.destinationProblem(options, project: project, services: services) {
            throw Failure.invalid("\(name): \(problem)")
        }
        let suffix = try suffixOption(body["suffix"])
        let now = services.now(for: project)
        var utm: [String: String] = [:]
        for name in LinkTemplate.utmKeys { utm[name] = parameters["utm_" + name] }
        for attempt in 0..<12 {
            // SHORT: as short as is free, from 4 characters; UNGUESSABLE: 17.
            let length = suffix == "SHORT" ? 4 + attempt / 3 : 17
            let link = Link(
                id: Identifiers.newID(), projectID: project.id, shortCode: ShortCode.generate(length: length), originalURL: options.link,
                utm: UTM(utm), og: Link.OpenGraph(title: parameters["st"], description: parameters["sd"], image: parameters["si"]),
                createdAt: now, domain: claim.domain, fdl: options)
            do {
                let created = try services.app.links.create(link, codeIsCustom: true)
                let url = "https://\(claim.domain)/\(created.shortCode)"
                let answer = JSONValue.object([
                    "shortLink": .string(url), "previewLink": .string(url + "?d=1"), "warning": .array(warnings),
                ])
                return HTTPResponse(
                    status: .ok, headers: ["Content-Type": "application/json; charset=UTF-8", "Cache-Control": "no-store"], body: answer.serialized())
            } catch StoreError.conflict {
                continue
            }
        }
        throw Failure(code: 409, status: "ABORTED", message: "no free short code was found; try again")
    }

    /// A long link's domain and parameters; parameters FDL does not have are warned about.
    static func longLink(_ text: String, warnings: inout [JSONValue]) throws -> (String, [String: String]) {
        guard let url = URLComponents(string: text), url.scheme?.lowercased() == "https", let host = url.host, !host.isEmpty else {
            throw Failure.invalid("longDynamicLink must be an https URL on one of your domains")
        }
        var parameters: [String: String] = [:]
        let known = Set(FDLOptions.parameterNames + ["st", "sd", "si", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"])
        for item in url.queryItems ?? [] where parameters[item.name] == nil {
            guard known.contains(item.name) else {
                warnings.append(
                    .object([
                        "warningCode": .string("UNRECOGNIZED_PARAM"),
                        "warningMessage": .string("Unrecognized param '\(item.name.prefix(characters: 64))'"),
                    ]))
                continue
            }
            parameters[item.name] = item.value ?? ""
        }
        return (host.lowercased(), parameters)
    }

    /// `dynamicLinkInfo`'s fields as the long link's parameters they stand for.
    static func linkInfo(_ info: [String: JSONValue]) throws -> (String, [String: String]) {
        guard case .string(let prefix)? = info["domainUriPrefix"], let url = URLComponents(string: prefix), url.scheme == "https",
            let host = url.host, !host.isEmpty
        else { throw Failure.invalid("dynamicLinkInfo.domainUriPrefix must be https://<one of your domains>") }
        guard url.path.isEmpty || url.path == "/" else {
            throw Failure.invalid(
                "dynamicLinkInfo.domainUriPrefix: a path prefix (\(url.path.prefix(characters: 64))) is not supported; use the domain alone")
        }
        var parameters: [String: String] = [:]
        func take(_ object: JSONValue?, _ path: String, _ fields: [(String, String)]) throws {
            guard let object else { return }
            guard case .object(let map) = object else { throw Failure.invalid("dynamicLinkInfo.\(path) must be an object") }
            for (name, _) in map where !fields.contains(where: { $0.0 == name }) {
                throw Failure.invalid("Invalid JSON payload received. Unknown name \"\(name.prefix(characters: 64))\" at 'dynamic_link_info.\(path)'")
            }
            for (field, parameter) in fields {
                switch map[field] {
                case nil, .null?: continue
                case .string(let text)?: parameters[parameter] = text
                case .bool(let flag)?: parameters[parameter] = flag ? "1" : "0"
                case .number(let number)?: parameters[parameter] = number.decimalText
                default: throw Failure.invalid("dynamicLinkInfo.\(path).\(field) must be a string")
                }
            }
        }
        for name in info.keys
        where !["domainUriPrefix", "link", "androidInfo", "iosInfo", "navigationInfo", "analyticsInfo", "socialMetaTagInfo"].contains(name) {
            throw Failure.invalid("Invalid JSON payload received. Unknown name \"\(name.prefix(characters: 64))\" at 'dynamic_link_info'")
        }
        guard case .string(let link)? = info["link"] else { throw Failure.invalid("dynamicLinkInfo.link is required") }
        parameters["link"] = link
        try take(
            info["androidInfo"], "androidInfo",
            [("androidPackageName", "apn"), ("androidFallbackLink", "afl"), ("androidMinPackageVersionCode", "amv")])
        try take(
            info["iosInfo"], "iosInfo",
            [
                ("iosBundleId", "ibi"), ("iosFallbackLink", "ifl"), ("iosCustomScheme", "ius"), ("iosIpadFallbackLink", "ipfl"),
                ("iosIpadBundleId", "ipbi"), ("iosAppStoreId", "isi"), ("iosMinimumVersion", "imv"),
            ])
        try take(info["navigationInfo"], "navigationInfo", [("enableForcedRedirect", "efr")])
        try take(info["socialMetaTagInfo"], "socialMetaTagInfo", [("socialTitle", "st"), ("socialDescription", "sd"), ("socialImageLink", "si")])
        if let analytics = info["analyticsInfo"] {
            guard case .object(let map) = analytics else { throw Failure.invalid("dynamicLinkInfo.analyticsInfo must be an object") }
            for name in map.keys where !["googlePlayAnalytics", "itunesConnectAnalytics"].contains(name) {
                throw Failure.invalid(
                    "Invalid JSON payload received. Unknown name \"\(name.prefix(characters: 64))\" at 'dynamic_link_info.analytics_info'")
            }
            try take(
                map["googlePlayAnalytics"], "analyticsInfo.googlePlayAnalytics",
                [
                    ("utmSource", "utm_source"), ("utmMedium", "utm_medium"), ("utmCampaign", "utm_campaign"), ("utmTerm", "utm_term"),
                    ("utmContent", "utm_content"),
                ])
            try take(map["itunesConnectAnalytics"], "analyticsInfo.itunesConnectAnalytics", [("at", "at"), ("ct", "ct"), ("mt", "mt"), ("pt", "pt")])
        }
        return (host.lowercased(), parameters)
    }

    static func suffixOption(_ value: JSONValue?) throws -> String {
        guard let value else { return "UNGUESSABLE" }
        guard case .object(let map) = value, map.keys.allSatisfy({ $0 == "option" }) else {
            throw Failure.invalid("suffix must be {\"option\": \"SHORT\" | \"UNGUESSABLE\"}")
        }
        guard case .string(let option)? = map["option"] else { return "UNGUESSABLE" }
        guard ["SHORT", "UNGUESSABLE"].contains(option) else {
            throw Failure.invalid("suffix.option must be SHORT or UNGUESSABLE, got '\(option.prefix(characters: 32))'")
        }
        return option
    }
}
