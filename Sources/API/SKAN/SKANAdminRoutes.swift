public import App
public import Attribution
import HTTP
public import JSON
import StoreContracts

/// `/admin/v1/projects/:id/skan/…`: where verified copies are forwarded, the copies received,
/// and the report of what Apple measured.
enum SKANAdminRoutes {
    /// `GET /admin/v1/projects/:id/skan/forwarding`
    static func showForwarding(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { _, project in forwardingBody(project) }
    }

    /// `PUT /admin/v1/projects/:id/skan/forwarding` `{"urls": ["https://…"]}`
    static func setForwarding(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            guard case .object(let fields) = try request.decodeJSON(JSONValue.self) else {
                throw HTTPError.invalidField("urls", "the body must be an object {\"urls\": [...]}")
            }
            if let unknown = fields.keys.sorted().first(where: { $0 != "urls" }) { throw HTTPError.invalidField(unknown, "is not a known field") }
            guard case .array(let values)? = fields["urls"] else { throw HTTPError.invalidField("urls", "must be an array of URLs") }
            let urls = try values.enumerated().map { index, value in
                guard case .string(let url) = value else { throw HTTPError.invalidField("urls[\(index)]", "must be a string") }
                return url
            }
            return forwardingBody(try services.app.applePostbacks.setForwarding(urls, project: project))
        }
    }

    static func forwardingBody(_ project: Project) -> HTTPResponse {
        .json(
            bytes: JSONValue.object([
                "urls": .array(project.settings.skanForwarding.map(JSONValue.string)),
                "app_store_id": project.settings.appStoreID.map { .number(Double($0)) } ?? .null,
            ]).serialized())
    }

    /// `GET /admin/v1/projects/:id/skan/postbacks?since=&until=&limit=&cursor=`
    static func listPostbacks(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let (since, until) = try TimeParameter.period(of: request, now: services.now(for: project))
            let limit = try integerQuery(request, "limit", in: 1...500) ?? 100
            let cursor = try request.queryValue("cursor").map(parseCursor)
            let postbacks = try services.app.applePostbacks.list(project: project, since: since, until: until, before: cursor, limit: limit)
            var body: [String: JSONValue] = [
                "postbacks": .array(
                    postbacks.map {
                        .object(ApplePostbackJSON.object($0, decoded: services.app.applePostbacks.decode($0.postback, project: project)))
                    })
            ]
            if postbacks.count == limit, let last = postbacks.last {
                body["next_cursor"] = .string("\(last.receivedAt.milliseconds).\(last.id)")
            }
            return .json(bytes: JSONValue.object(body).serialized())
        }
    }

    /// `GET /admin/v1/projects/:id/skan/report?since=&until=`
    static func report(_ services: Services) -> RouteHandler {
        ProjectScoped.sync(services) { request, project in
            let (since, until) = try TimeParameter.period(of: request, now: services.now(for: project))
            let ours = try services.app.reports.stats(project: project, since: since, until: until).totals
            let report = try services.app.applePostbacks.report(project: project, since: since, until: until, ours: ours)
            return .json(bytes: JSONValue.object(SKANReportJSON.object(report, since: since, until: until)).serialized())
        }
    }

    static func parseCursor(_ text: String) throws -> (Timestamp, String) {
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let milliseconds = Int64(parts[0]), !parts[1].isEmpty else {
            throw HTTPError.invalidField("cursor", "must be a next_cursor this API returned")
        }
        return (Timestamp(milliseconds: milliseconds), String(parts[1]))
    }
}

/// The report's JSON: one row per framework × ad network × source × window (the admin API and
/// `attributiond stats --skan --json`).
public enum SKANReportJSON {
    public static func object(_ report: SKANReport, since: Timestamp, until: Timestamp) -> [String: JSONValue] {
        [
            "since": .string(since.iso8601), "until": .string(until.iso8601),
            "postbacks": .number(Double(report.postbacks)), "redownloads": .number(Double(report.redownloads)),
            "currency": report.currency.map(JSONValue.string) ?? .null,
            "our_installs": .number(Double(report.ourInstalls)), "our_attributed_installs": .number(Double(report.ourAttributedInstalls)),
            "rows": .array(report.rows.map { .object(row($0)) }),
        ]
    }

    static func row(_ row: SKANReport.Row) -> [String: JSONValue] {
        [
            "framework": .string(row.framework.rawValue), "ad_network_id": .string(row.adNetworkID), "source": .string(row.source),
            "postback_sequence_index": .number(Double(row.sequenceIndex)), "postbacks": .number(Double(row.postbacks)),
            "redownloads": .number(Double(row.redownloads)),
            "conversion_values": .object(Dictionary(uniqueKeysWithValues: row.fineValues.map { (String($0.key), .number(Double($0.value))) })),
            "coarse_conversion_values": .object(row.coarseValues.mapValues { .number(Double($0)) }),
            "without_value": .number(Double(row.withoutValue)), "events": .object(row.events.mapValues { .number(Double($0)) }),
            "revenue_at_least": .number(row.revenueAtLeast), "revenue_below": row.revenueBelow.map(JSONValue.number) ?? .null,
            "without_revenue": .number(Double(row.withoutRevenue)),
        ]
    }
}
